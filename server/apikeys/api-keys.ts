import { and, eq, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { isId, newId } from '../db/ids';
import { apiKeys, organizations, users } from '../db/schema';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import { emitEvent } from '../events/events';
import type { AuditContext } from '../http/actor';
import { AppError, notFound, validationError } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { forgetApiKey } from './cache';

/**
 * End-user API keys. A key belongs to a subject (a user_ or org_ of the instance); its
 * `ak_` secret is shown once and stored as SHA-256. Revoking is final; a subject deleted
 * or banned has its keys revoked in the same transaction (lifecycle.ts).
 */
const AK_PREFIX = 'ak_';
export const AK_RE = /^ak_[A-Za-z0-9_-]{43}$/;
/** Unrevoked keys one subject may hold. */
const MAX_KEYS_PER_SUBJECT = 100;

export type ApiKeyRow = typeof apiKeys.$inferSelect;
type D = Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>;

export const apiKeyView = (r: ApiKeyRow) => ({
  object: 'api_key' as const,
  id: r.id,
  subject: r.subject,
  name: r.name,
  description: r.description,
  scopes: r.scopes,
  claims: r.claims,
  expiration: r.expiresAt,
  created_by: r.createdBy,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
  last_used_at: r.lastUsedAt,
  revoked: r.revokedAt !== null,
  revocation_reason: r.revocationReason,
});
const isSubjectId = (s: string) => isId('user', s) || isId('org', s);

/**
 * Locks the subject's row (serialising mints, so the cap holds) or answers 422 `not_found`.
 * FOR NO KEY UPDATE: the subject is a parent row (server/db/row-locks.ts).
 */
async function lockSubject(db: Db, instanceId: string, subject: string) {
  const table = subject.startsWith('user_') ? users : organizations;
  const [row] = isSubjectId(subject)
    ? await db
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.id, subject), eq(table.instanceId, instanceId)))
        .for('no key update')
    : [];
  if (!row) throw validationError('subject', 'not_found', 'subject names no user or organization of this instance.');
}

async function assertUser(db: Db, instanceId: string, userId: string, param: string) {
  const [row] = isId('user', userId)
    ? await db
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)))
    : [];
  if (!row) throw validationError(param, 'not_found', `${param} names no user of this instance.`);
}

export interface CreateApiKeyInput {
  subject: string;
  name: string;
  description?: string | null;
  scopes?: string[];
  claims?: Record<string, unknown> | null;
  expires_in_seconds?: number | null;
  created_by?: string | null;
}

async function auditKey(
  d: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  ctx: AuditContext,
  action: string,
  row: ApiKeyRow,
  details: Record<string, unknown> = {},
) {
  await audit(d, { instanceId, ...ctx, action, target: row.id, details: { subject: row.subject, name: row.name, ...details } });
}

/** Mints a key: the answer is the only one that carries `secret`. */
export async function createApiKey(deps: D, instanceId: string, input: CreateApiKeyInput, ctx: AuditContext) {
  const secret = generateSecret(AK_PREFIX);
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    await lockSubject(tx, instanceId, input.subject);
    if (input.created_by) await assertUser(tx, instanceId, input.created_by, 'created_by');
    const [count] = await tx
      .select({ n: sql<number>`count(*)::int` })
      .from(apiKeys)
      .where(and(eq(apiKeys.instanceId, instanceId), eq(apiKeys.subject, input.subject), isNull(apiKeys.revokedAt)));
    if (Number(count?.n ?? 0) >= MAX_KEYS_PER_SUBJECT) {
      throw new AppError('CONFLICT', {
        message: `A subject may hold at most ${MAX_KEYS_PER_SUBJECT} keys; revoke one first.`,
        meta: { reason: 'too_many_keys' },
      });
    }
    const now = deps.clock.now();
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: newId('apik'),
        instanceId,
        subject: input.subject,
        name: input.name,
        description: input.description ?? null,
        scopes: [...new Set(input.scopes ?? [])].sort(),
        claims: input.claims ?? null,
        digest: sha256Hex(secret),
        createdBy: input.created_by ?? null,
        expiresAt: input.expires_in_seconds ? now + input.expires_in_seconds * 1000 : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const view = apiKeyView(row!);
    await emitEvent(d, instanceId, 'apiKey.created', view);
    await auditKey(d, instanceId, ctx, 'api_key.created', row!, { scopes: view.scopes, expiration: view.expiration });
    return { ...view, secret };
  });
}

async function loadKey(db: Db, instanceId: string, id: string, subject?: string): Promise<ApiKeyRow> {
  const [row] = await db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.instanceId, instanceId), subject ? eq(apiKeys.subject, subject) : undefined));
  if (!row) throw notFound('API key');
  return row;
}

export async function getApiKey(deps: Pick<Deps, 'db'>, instanceId: string, id: string) {
  return apiKeyView(await loadKey(deps.db, instanceId, id));
}

export interface ListApiKeysQuery {
  subject?: string;
  /** true: only revoked keys; false: only unrevoked ones; absent: both. */
  revoked?: boolean;
  limit: number;
  starting_after?: string;
}

/** Newest first, keyset-paginated on the time-sortable id. */
export async function listApiKeys(deps: Pick<Deps, 'db'>, instanceId: string, q: ListApiKeysQuery) {
  const filters: (SQL | undefined)[] = [eq(apiKeys.instanceId, instanceId)];
  if (q.subject !== undefined) filters.push(eq(apiKeys.subject, q.subject));
  if (q.revoked !== undefined) filters.push(q.revoked ? isNotNull(apiKeys.revokedAt) : isNull(apiKeys.revokedAt));
  return cursorList(q, newestFirst(apiKeys.id), tableRows(deps.db, apiKeys, ...filters), apiKeyView);
}

export interface UpdateApiKeyInput {
  name?: string;
  description?: string | null;
  scopes?: string[];
  claims?: Record<string, unknown> | null;
}

/** Renames or re-scopes a key; `claims` and `scopes` are replaced, not merged. */
export async function updateApiKey(deps: D, instanceId: string, id: string, input: UpdateApiKeyInput, ctx: AuditContext) {
  const row = await deps.db.transaction(async (tx) => {
    await loadKey(tx, instanceId, id);
    const patch: Partial<typeof apiKeys.$inferInsert> = { updatedAt: deps.clock.now() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.scopes !== undefined) patch.scopes = [...new Set(input.scopes)].sort();
    if (input.claims !== undefined) patch.claims = input.claims;
    const [updated] = await tx.update(apiKeys).set(patch).where(eq(apiKeys.id, id)).returning();
    await auditKey({ db: tx, clock: deps.clock }, instanceId, ctx, 'api_key.updated', updated!, { fields: Object.keys(input).sort() });
    return updated!;
  });
  forgetApiKey(deps, row.digest);
  return apiKeyView(row);
}

/** Marks the rows revoked and emits `apiKey.revoked` for each; the caller's transaction holds it all. */
export async function markRevoked(
  d: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  where: SQL,
  reason: string | null,
): Promise<ApiKeyRow[]> {
  const now = d.clock.now();
  const rows = await d.db
    .update(apiKeys)
    .set({ revokedAt: now, revocationReason: reason, updatedAt: now })
    .where(and(eq(apiKeys.instanceId, instanceId), isNull(apiKeys.revokedAt), where))
    .returning();
  for (const row of rows) await emitEvent(d, instanceId, 'apiKey.revoked', apiKeyView(row));
  return rows;
}

/**
 * Revokes one key (of `subject` only, when given: self-service); revoking a revoked key
 * changes nothing and answers it as it is.
 */
export async function revokeApiKey(
  deps: D,
  instanceId: string,
  id: string,
  input: { revocation_reason?: string | null; subject?: string },
  ctx: AuditContext,
) {
  const row = await deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const current = await loadKey(tx, instanceId, id, input.subject);
    if (current.revokedAt !== null) return current;
    const [revoked] = await markRevoked(d, instanceId, eq(apiKeys.id, id), input.revocation_reason ?? null);
    await auditKey(d, instanceId, ctx, 'api_key.revoked', revoked!, { revocation_reason: revoked!.revocationReason });
    return revoked!;
  });
  forgetApiKey(deps, row.digest);
  return apiKeyView(row);
}

/** The presented secret's row when its digest matches, compared in constant time. */
export function matchesDigest(row: ApiKeyRow, digest: string) {
  return constantTimeEqual(row.digest, digest);
}
