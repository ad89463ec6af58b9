import { and, desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { externalAccounts, organizations, socialProviders, ssoAccounts, ssoConnections } from '../db/schema';
import { emitEvent } from '../events/events';
import { notFound } from '../http/errors';
import { getUser } from './users';

/**
 * The accounts a user signs in with elsewhere: social providers (`eac_`, linked by verified
 * email at a social sign-in; the user may disconnect them) and enterprise SSO identities
 * (`ssoa_`, the organization's: they stay while the connection does).
 */
export const connectedAccountSchema = z
  .object({
    object: z.literal('connected_account'),
    id: z.string(),
    kind: z.enum(['oauth', 'enterprise_sso']),
    /** The social provider's strategy (`oauth_<name>`), or `enterprise_sso`. */
    strategy: z.string(),
    /** What the user recognises: the provider's display name, or the connection's name. */
    provider_name: z.string(),
    email_address: z.string().nullable(),
    organization: z.object({ id: z.string(), name: z.string() }).nullable(),
    removable: z.boolean(),
    created_at: z.number().int(),
  })
  .meta({ id: 'ConnectedAccount' });
export type ConnectedAccount = z.output<typeof connectedAccountSchema>;

export async function listConnectedAccounts(deps: Pick<Deps, 'db'>, instanceId: string, userId: string): Promise<ConnectedAccount[]> {
  const social = await deps.db
    .select({ account: externalAccounts, displayName: socialProviders.displayName })
    .from(externalAccounts)
    .leftJoin(
      socialProviders,
      and(eq(socialProviders.instanceId, externalAccounts.instanceId), eq(socialProviders.name, externalAccounts.provider)),
    )
    .where(and(eq(externalAccounts.instanceId, instanceId), eq(externalAccounts.userId, userId)))
    .orderBy(desc(externalAccounts.createdAt));
  const enterprise = await deps.db
    .select({ account: ssoAccounts, connection: ssoConnections.name, orgId: organizations.id, orgName: organizations.name })
    .from(ssoAccounts)
    .innerJoin(ssoConnections, eq(ssoConnections.id, ssoAccounts.connectionId))
    .innerJoin(organizations, eq(organizations.id, ssoConnections.organizationId))
    .where(and(eq(ssoAccounts.instanceId, instanceId), eq(ssoAccounts.userId, userId)))
    .orderBy(desc(ssoAccounts.createdAt));
  return [
    ...social.map(({ account: a, displayName }) => ({
      object: 'connected_account' as const,
      id: a.id,
      kind: 'oauth' as const,
      strategy: `oauth_${a.provider}`,
      provider_name: displayName ?? a.provider,
      email_address: a.email,
      organization: null,
      removable: true,
      created_at: a.createdAt,
    })),
    ...enterprise.map(({ account: a, connection, orgId, orgName }) => ({
      object: 'connected_account' as const,
      id: a.id,
      kind: 'enterprise_sso' as const,
      strategy: 'enterprise_sso',
      provider_name: connection,
      email_address: a.emailAddress,
      organization: { id: orgId, name: orgName },
      removable: false,
      created_at: a.createdAt,
    })),
  ];
}

/** Disconnects one of the user's social accounts: that provider no longer signs them in (until linked again by verified email). */
export async function disconnectSocialAccount(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string, id: string) {
  return deps.db.transaction(async (tx) => {
    const [removed] = await tx
      .delete(externalAccounts)
      .where(and(eq(externalAccounts.id, id), eq(externalAccounts.instanceId, instanceId), eq(externalAccounts.userId, userId)))
      .returning({ id: externalAccounts.id });
    if (!removed) throw notFound('connected_account');
    await emitEvent(
      { db: tx, clock: deps.clock },
      instanceId,
      'user.updated',
      await getUser({ db: tx, clock: deps.clock }, instanceId, userId),
    );
    return { object: 'connected_account' as const, id: removed.id, deleted: true as const };
  });
}
