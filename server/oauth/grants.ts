import { and, desc, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { oauthApplications, oauthAuthorizations, oauthGrants } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { notFound } from '../http/errors';
import { revokeAuthorizations } from './authorizations';

type D = Pick<Deps, 'db' | 'clock'>;

/** The consents a user gave (`ogr_`), as the hosted profile lists them. */
export const grantSchema = z.object({
  object: z.literal('oauth_grant'),
  id: z.string(),
  application: z.object({ client_id: z.string(), name: z.string() }),
  scopes: z.array(z.string()),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export async function listUserGrants(deps: Pick<Deps, 'db'>, instanceId: string, userId: string) {
  const rows = await deps.db
    .select({ grant: oauthGrants, name: oauthApplications.name })
    .from(oauthGrants)
    .innerJoin(oauthApplications, eq(oauthApplications.id, oauthGrants.applicationId))
    .where(and(eq(oauthGrants.instanceId, instanceId), eq(oauthGrants.userId, userId)))
    .orderBy(desc(oauthGrants.id))
    // One per app at most: bounded by the instance's apps.
    .limit(500);
  return {
    object: 'list' as const,
    data: rows.map(({ grant: g, name }) => ({
      object: 'oauth_grant' as const,
      id: g.id,
      application: { client_id: g.applicationId, name },
      scopes: g.scopes,
      created_at: g.createdAt,
      updated_at: g.updatedAt,
    })),
    has_more: false,
  };
}

/**
 * Withdraws a consent: the app asks again next time, and everything it holds for this user
 * (refresh tokens, access tokens by introspection and userinfo) stops working. Audited.
 */
export async function revokeUserGrant(deps: D, instanceId: string, userId: string, grantId: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const [grant] = await tx
      .delete(oauthGrants)
      .where(and(eq(oauthGrants.id, grantId), eq(oauthGrants.instanceId, instanceId), eq(oauthGrants.userId, userId)))
      .returning();
    if (!grant) throw notFound('OAuth grant');
    const live = await tx
      .select({ id: oauthAuthorizations.id })
      .from(oauthAuthorizations)
      .where(
        and(
          eq(oauthAuthorizations.applicationId, grant.applicationId),
          eq(oauthAuthorizations.userId, userId),
          isNull(oauthAuthorizations.revokedAt),
        ),
      );
    const now = deps.clock.now();
    await revokeAuthorizations(
      tx,
      now,
      live.map((r) => r.id),
    );
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        ...ctx,
        action: 'oauth_grant.revoked',
        target: grant.id,
        details: { application_id: grant.applicationId, user_id: userId, authorizations_revoked: live.length },
      },
    );
    return { object: 'oauth_grant' as const, id: grant.id, deleted: true as const };
  });
}
