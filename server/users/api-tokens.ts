import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { apiTokens, users } from '../db/schema';
import { AppError, notFound } from '../http/errors';
import { newId } from '../db/ids';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import type { AuditContext } from '../http/actor';

/**
 * Personal access tokens. A signed-in user (a session, never another token) mints a
 * `uat_` secret scoped to their own me-surface; it is shown once and stored as its
 * SHA-256. The token id is `pat_…` (not a secret). A token is refused once revoked, past
 * `expires_at`, or when its user is banned or gone.
 */
export const ME_SCOPES = ['me:read', 'me:write'] as const;
export type MeScope = (typeof ME_SCOPES)[number];
export const UAT_PREFIX = 'uat_';
const UAT_RE = /^uat_[A-Za-z0-9_-]{43}$/;
/** Live (unrevoked) tokens one user may hold. */
const MAX_TOKENS_PER_USER = 50;

type Row = typeof apiTokens.$inferSelect;

/** `me:write` implies `me:read`. */
const meGrants = (held: readonly string[], required: MeScope) =>
  held.includes(required) || (required === 'me:read' && held.includes('me:write'));

const apiTokenView = (r: Row, now: number) => ({
  object: 'api_token' as const,
  id: r.id,
  name: r.name,
  scopes: r.scopes,
  status:
    r.revokedAt !== null ? ('revoked' as const) : r.expiresAt !== null && r.expiresAt <= now ? ('expired' as const) : ('active' as const),
  expires_at: r.expiresAt,
  last_used_at: r.lastUsedAt,
  revoked_at: r.revokedAt,
  created_at: r.createdAt,
});

export async function createApiToken(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  input: { userId: string; sessionId: string; name: string; scopes: MeScope[]; expiresInSeconds?: number },
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    // Serialises mints of one user, so the cap holds under concurrency; NO KEY UPDATE (server/db/row-locks.ts).
    await tx.select({ id: users.id }).from(users).where(eq(users.id, input.userId)).for('no key update');
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(apiTokens)
      .where(and(eq(apiTokens.userId, input.userId), isNull(apiTokens.revokedAt)));
    if (Number(count?.n ?? 0) >= MAX_TOKENS_PER_USER) {
      throw new AppError('CONFLICT', {
        message: `A user may hold at most ${MAX_TOKENS_PER_USER} tokens; revoke one first.`,
        meta: { reason: 'too_many_tokens' },
      });
    }
    const token = generateSecret(UAT_PREFIX);
    const now = deps.clock.now();
    const [row] = await tx
      .insert(apiTokens)
      .values({
        id: newId('pat'),
        instanceId,
        userId: input.userId,
        name: input.name,
        scopes: [...new Set(input.scopes)].sort(),
        digest: sha256Hex(token),
        sessionId: input.sessionId,
        expiresAt: input.expiresInSeconds ? now + input.expiresInSeconds * 1000 : null,
        createdAt: now,
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: auditCtx.actor,
        action: 'api_token.created',
        target: row!.id,
        ip: auditCtx.ip,
        userAgent: auditCtx.userAgent,
        details: { user_id: input.userId, scopes: row!.scopes },
      },
    );
    return { ...apiTokenView(row!, now), token };
  });
}

export async function listApiTokens(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const rows = await deps.db
    .select()
    .from(apiTokens)
    .where(and(eq(apiTokens.instanceId, instanceId), eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)))
    .orderBy(desc(apiTokens.id));
  const now = deps.clock.now();
  return { object: 'list' as const, data: rows.map((r) => apiTokenView(r, now)), has_more: false };
}

/** Revokes one of the user's tokens; revoking a revoked one is a no-op. Another user's is 404. */
export async function revokeApiToken(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  userId: string,
  id: string,
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const where = and(eq(apiTokens.id, id), eq(apiTokens.instanceId, instanceId), eq(apiTokens.userId, userId));
    const [current] = await tx.select().from(apiTokens).where(where);
    if (!current) throw notFound('api token');
    const now = deps.clock.now();
    if (current.revokedAt !== null) return apiTokenView(current, now);
    const [row] = await tx.update(apiTokens).set({ revokedAt: now }).where(where).returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        actor: auditCtx.actor,
        action: 'api_token.revoked',
        target: id,
        ip: auditCtx.ip,
        userAgent: auditCtx.userAgent,
        details: { user_id: userId },
      },
    );
    return apiTokenView(row!, now);
  });
}

/**
 * The user a presented `uat_` token acts for, when it is live in this instance and holds
 * `scope`: 401 INVALID_KEY for an unknown, revoked or expired token (or a banned user),
 * 403 SCOPE_MISSING (meta.required_scope) without the scope.
 */
export async function authenticateApiToken(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, token: string, scope: MeScope) {
  const invalid = () => new AppError('INVALID_KEY', { message: 'The personal access token is invalid, expired or revoked.' });
  if (!UAT_RE.test(token)) throw invalid();
  const digest = sha256Hex(token);
  const [found] = await deps.db
    .select({ token: apiTokens, banned: users.banned })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.userId))
    .where(and(eq(apiTokens.digest, digest), eq(apiTokens.instanceId, instanceId)));
  const now = deps.clock.now();
  if (!found || !constantTimeEqual(found.token.digest, digest)) throw invalid();
  const t = found.token;
  if (t.revokedAt !== null || (t.expiresAt !== null && t.expiresAt <= now) || found.banned) throw invalid();
  if (!meGrants(t.scopes, scope)) {
    throw new AppError('SCOPE_MISSING', { message: `This token lacks the ${scope} scope.`, meta: { required_scope: scope } });
  }
  // Last use at a one-minute resolution: no write on every request.
  if (t.lastUsedAt === null || now - t.lastUsedAt > 60_000) {
    await deps.db.update(apiTokens).set({ lastUsedAt: now }).where(eq(apiTokens.id, t.id));
  }
  return { userId: t.userId, tokenId: t.id };
}
