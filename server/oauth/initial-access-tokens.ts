import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { oauthInitialAccessTokens } from '../db/schema';
import { newId } from '../db/ids';
import { generateSecret, sha256Hex } from '../crypto/secrets';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import { INITIAL_ACCESS_TOKEN_PREFIX } from './registration';

/**
 * Initial access tokens (RFC 7591 §3): what an operator hands a developer (or a conformance
 * suite) so that it may register OAuth applications at `POST {issuer}/oauth2/register`. Shown
 * once, kept as a SHA-256 digest; an expiry and a number of uses bound it, and it can be revoked.
 */

type D = Pick<Deps, 'db' | 'clock'>;
type Row = typeof oauthInitialAccessTokens.$inferSelect;

const DAY_S = 86_400;

export const createInitialAccessTokenBody = z.strictObject({
  name: z.string().trim().min(1).max(256),
  expires_in_seconds: z
    .number()
    .int()
    .min(60)
    .max(365 * DAY_S)
    .nullable()
    .default(7 * DAY_S)
    .meta({ description: 'Seconds until it stops working (default 7 days, at most a year); null: until revoked.' }),
  max_uses: z
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .nullable()
    .default(null)
    .meta({ description: 'How many registrations it allows (1: single use); null: no limit.' }),
});

export const initialAccessTokenSchema = z
  .object({
    object: z.literal('oauth_initial_access_token'),
    id: z.string(),
    name: z.string(),
    expires_at: z.number().int().nullable(),
    max_uses: z.number().int().nullable(),
    use_count: z.number().int(),
    last_used_at: z.number().int().nullable(),
    revoked_at: z.number().int().nullable(),
    /** active, expired, used_up or revoked. */
    status: z.enum(['active', 'expired', 'used_up', 'revoked']),
    created_at: z.number().int(),
  })
  .meta({ id: 'OAuthInitialAccessToken' });
export const initialAccessTokenWithSecretSchema = initialAccessTokenSchema.extend({ token: z.string() });
export const initialAccessTokenListSchema = cursorPageSchema(initialAccessTokenSchema);
export const listInitialAccessTokensQuery = z.object(pageQuery);

const view = (now: number) => (r: Row) => ({
  object: 'oauth_initial_access_token' as const,
  id: r.id,
  name: r.name,
  expires_at: r.expiresAt,
  max_uses: r.maxUses,
  use_count: r.useCount,
  last_used_at: r.lastUsedAt,
  revoked_at: r.revokedAt,
  status:
    r.revokedAt !== null
      ? ('revoked' as const)
      : r.expiresAt !== null && r.expiresAt <= now
        ? ('expired' as const)
        : r.maxUses !== null && r.useCount >= r.maxUses
          ? ('used_up' as const)
          : ('active' as const),
  created_at: r.createdAt,
});

/** Creates a token; its value is in this answer only. */
export async function createInitialAccessToken(
  deps: D,
  instanceId: string,
  input: z.output<typeof createInitialAccessTokenBody>,
  ctx: AuditContext,
) {
  const token = generateSecret(INITIAL_ACCESS_TOKEN_PREFIX);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const [row] = await tx
      .insert(oauthInitialAccessTokens)
      .values({
        id: newId('oiat'),
        instanceId,
        name: input.name,
        digest: sha256Hex(token),
        expiresAt: input.expires_in_seconds === null ? null : now + input.expires_in_seconds * 1000,
        maxUses: input.max_uses,
        createdAt: now,
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        ...ctx,
        action: 'oauth_initial_access_token.created',
        target: row!.id,
        details: { expires_in_seconds: input.expires_in_seconds, max_uses: input.max_uses },
      },
    );
    return { ...view(now)(row!), token };
  });
}

export async function listInitialAccessTokens(deps: D, instanceId: string, q: { limit: number; starting_after?: string }) {
  return cursorList(
    q,
    newestFirst(oauthInitialAccessTokens.id),
    tableRows(deps.db, oauthInitialAccessTokens, eq(oauthInitialAccessTokens.instanceId, instanceId)),
    view(deps.clock.now()),
  );
}

/** Revokes a token at once: registrations with it fail; the applications it registered stay. */
export async function revokeInitialAccessToken(deps: D, instanceId: string, id: string, ctx: AuditContext) {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const where = and(eq(oauthInitialAccessTokens.id, id), eq(oauthInitialAccessTokens.instanceId, instanceId));
    const [row] = await tx.select().from(oauthInitialAccessTokens).where(where);
    if (!row) throw notFound('initial access token');
    if (row.revokedAt !== null) throw new AppError('CONFLICT', { message: 'This initial access token is already revoked.' });
    const [updated] = await tx.update(oauthInitialAccessTokens).set({ revokedAt: now }).where(where).returning();
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'oauth_initial_access_token.revoked', target: id });
    return view(now)(updated!);
  });
}
