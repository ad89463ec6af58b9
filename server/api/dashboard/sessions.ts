import { desc, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../../deps';
import { users } from '../../db/schema';
import { endpoint } from '../../http/endpoint';
import { notFound } from '../../http/errors';
import { routeInstance, type ConsoleAuth } from './authenticate';
import { claimsTemplateSchema, renderClaims, type ClaimsTemplate, type ClaimsUser } from '../../instances/claims-template';
import { claimsUser } from '../../sessions/tokens';
import { sessionEndpointsFor } from '../../sessions/endpoints';

/** Who a preview renders for when the instance has no user yet. */
const SAMPLE_USER: ClaimsUser = {
  id: 'user_2example0000000000000000',
  externalId: null,
  firstName: 'Ada',
  lastName: 'Lovelace',
  username: 'ada',
  primaryEmail: 'ada@example.com',
  emailVerified: true,
  publicMetadata: { plan: 'pro' },
  unsafeMetadata: {},
  createdAt: 1_700_000_000_000,
};

const previewBody = z.strictObject({
  /** The template to try; the instance's saved one when absent. */
  template: claimsTemplateSchema.optional(),
  /** Whose claims to show; the newest user (or a sample one) when absent. */
  user_id: z.string().min(1).max(64).optional(),
});

async function previewUser(deps: Pick<Deps, 'db'>, instanceId: string, userId: string | undefined) {
  if (userId) {
    const user = await claimsUser(deps.db, instanceId, userId);
    if (!user) throw notFound('user');
    return user;
  }
  const [newest] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(eq(users.instanceId, instanceId))
    .orderBy(desc(users.id))
    .limit(1);
  return (newest && (await claimsUser(deps.db, instanceId, newest.id))) ?? SAMPLE_USER;
}

/** The payload a session JWT would carry with a template (built-in claims as for a plain session). */
function previewPayload(deps: Pick<Deps, 'clock'>, fapiUrl: string, lifetime: number, template: ClaimsTemplate, user: ClaimsUser) {
  const now = Math.floor(deps.clock.now() / 1000);
  // Rendered as for a session on the personal account ({{org.…}} null).
  const custom = renderClaims(template, { user, org: null });
  const builtIn = { iss: fapiUrl, sub: user.id, sid: 'sess_preview', sv: 1, sts: 'active', iat: now, nbf: now, exp: now + lifetime };
  return { payload: { ...(custom ?? {}), ...builtIn }, omitted: custom === null };
}

export const dashboardSessions = sessionEndpointsFor<ConsoleAuth>(routeInstance);

export const sessionTokens = {
  preview: endpoint<ConsoleAuth, z.output<typeof previewBody>>({
    summary: 'Preview the session JWT payload a template gives a user (nothing is saved or signed)',
    audit: { unaudited: 'read-only preview' },
    body: previewBody,
    response: z.object({
      object: z.literal('session_token_preview'),
      user_id: z.string(),
      payload: z.record(z.string(), z.unknown()),
      omitted: z.boolean(),
    }),
    handle: async ({ deps, auth, body }) => {
      const instance = routeInstance(auth);
      const user = await previewUser(deps, instance.id, body.user_id);
      const template = body.template ?? instance.settings.session_token_claims;
      return {
        object: 'session_token_preview' as const,
        user_id: user.id,
        ...previewPayload(deps, instance.fapiUrl, instance.settings.session_token_lifetime_seconds, template, user),
      };
    },
  }),
};
