import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { prepared } from '../db/prepared';
import { newId } from '../db/ids';
import { organizations, scimTokens } from '../db/schema';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import { emitEvent } from '../events/events';
import { AppError, notFound } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { loadOrganization } from '../organizations/organization-view';

type TokenRow = typeof scimTokens.$inferSelect;
type D = Pick<Deps, 'db' | 'clock'>;

const SCIM_TOKEN_PREFIX = 'scim_';

const scimTokenView = (t: TokenRow) => ({
  object: 'scim_token' as const,
  id: t.id,
  organization_id: t.organizationId,
  name: t.name,
  created_at: t.createdAt,
  last_used_at: t.lastUsedAt,
  revoked_at: t.revokedAt,
});
/**
 * Mints a token for one organization's directory: the `scim_…` secret is in this answer
 * only; the row keeps its SHA-256 digest. scimToken.created carries the token without it.
 * Call inside the request's transaction.
 */
export async function createScimToken(deps: D, instanceId: string, input: { organization_id: string; name: string }) {
  const org = await loadOrganization(deps.db, instanceId, input.organization_id);
  const token = generateSecret(SCIM_TOKEN_PREFIX);
  const [row] = await deps.db
    .insert(scimTokens)
    .values({
      id: newId('scimtok'),
      instanceId,
      organizationId: org.id,
      name: input.name,
      digest: sha256Hex(token),
      createdAt: deps.clock.now(),
    })
    .returning();
  const view = scimTokenView(row!);
  await emitEvent(deps, instanceId, 'scimToken.created', view);
  return { ...view, token };
}

/** Tokens of the instance, or of one organization, newest first (cursor envelope). */
export async function listScimTokens(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  q: { organization_id?: string; limit: number; starting_after?: string },
) {
  const orgId = q.organization_id ? (await loadOrganization(deps.db, instanceId, q.organization_id)).id : undefined;
  const where = [eq(scimTokens.instanceId, instanceId), orgId ? eq(scimTokens.organizationId, orgId) : undefined];
  return cursorList(q, newestFirst(scimTokens.id), tableRows(deps.db, scimTokens, ...where), scimTokenView);
}

/**
 * Revokes a token at once (the surface reads tokens uncached); repeating it changes nothing
 * and emits nothing. `organizationId`: the token must be that organization's (console paths).
 */
export async function revokeScimToken(deps: D, instanceId: string, id: string, organizationId?: string) {
  const [current] = await deps.db
    .select()
    .from(scimTokens)
    .where(
      and(
        eq(scimTokens.id, id),
        eq(scimTokens.instanceId, instanceId),
        organizationId ? eq(scimTokens.organizationId, organizationId) : undefined,
      ),
    )
    .for('update');
  if (!current) throw notFound('SCIM token');
  if (current.revokedAt !== null) return scimTokenView(current);
  const [row] = await deps.db.update(scimTokens).set({ revokedAt: deps.clock.now() }).where(eq(scimTokens.id, id)).returning();
  const view = scimTokenView(row!);
  await emitEvent(deps, instanceId, 'scimToken.revoked', view);
  return view;
}

export interface ScimCaller {
  tokenId: string;
  instanceId: string;
  organizationId: string;
}

const SECRET_RE = /^scim_[A-Za-z0-9_-]{20,100}$/;

const tokenByDigest = prepared((db) =>
  db
    .select({
      id: scimTokens.id,
      digest: scimTokens.digest,
      instanceId: scimTokens.instanceId,
      organizationId: scimTokens.organizationId,
      lastUsedAt: scimTokens.lastUsedAt,
    })
    .from(scimTokens)
    .innerJoin(organizations, eq(organizations.id, scimTokens.organizationId))
    .where(and(eq(scimTokens.digest, sql.placeholder('digest')), isNull(scimTokens.revokedAt)))
    .prepare('scim_token_by_digest'),
);

/** `last_used_at` ("last sync" in the console) is kept to the minute: one write per token per minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** The organization a presented token speaks for; 401 for a malformed, unknown or revoked one (one message: no oracle). */
export async function resolveScimToken(deps: Pick<Deps, 'db' | 'clock'>, secret: string): Promise<ScimCaller> {
  const unknown = () => new AppError('UNAUTHENTICATED', { message: 'The SCIM token is invalid or has been revoked.' });
  if (!SECRET_RE.test(secret)) throw unknown();
  const digest = sha256Hex(secret);
  const [row] = await tokenByDigest(deps.db).execute({ digest });
  if (!row || !constantTimeEqual(row.digest, digest)) throw unknown();
  const now = deps.clock.now();
  if (row.lastUsedAt === null || now - row.lastUsedAt >= LAST_USED_RESOLUTION_MS) {
    // Awaited: on the embedded store's one connection, a stray write could land inside the request's transaction.
    await deps.db.update(scimTokens).set({ lastUsedAt: now }).where(eq(scimTokens.id, row.id));
  }
  return { tokenId: row.id, instanceId: row.instanceId, organizationId: row.organizationId };
}
