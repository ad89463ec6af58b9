import type { AuditContext } from '../http/actor';
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Deps, ResolvedKey } from '../deps';
import { audit } from '../audit/audit';
import { prepared } from '../db/prepared';
import { instances, secretKeys } from '../db/schema';
import { AppError, notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import { parseScopes } from './scopes';

const SECRET_RE = /^sk_(test|live)_[A-Za-z0-9_-]{20,100}$/;
const isWellFormedSecret = (s: string) => SECRET_RE.test(s);

export async function createSecretKey(
  deps: Pick<Deps, 'db' | 'clock'>,
  input: { instanceId: string; scopes: string | string[]; name?: string },
  auditCtx: AuditContext,
) {
  const parsed = parseScopes(input.scopes);
  if ('invalid' in parsed) throw validationError('scopes', 'invalid', `Unknown scope "${parsed.invalid}".`);
  const [instance] = await deps.db.select({ environment: instances.environment }).from(instances).where(eq(instances.id, input.instanceId));
  if (!instance) throw notFound('instance');
  const secret = generateSecret(`sk_${instance.environment}_`);
  const id = newId('key');
  const row = await deps.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(secretKeys)
      .values({
        id,
        instanceId: input.instanceId,
        name: input.name?.trim() || 'Secret key',
        digest: sha256Hex(secret),
        hint: secret.slice(0, 12),
        scopes: parsed.scopes,
        createdAt: deps.clock.now(),
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: input.instanceId,
        ...auditCtx,
        action: 'secret_key.created',
        target: id,
        details: { scopes: parsed.scopes, name: created!.name },
      },
    );
    return created!;
  });
  return { id: row.id, name: row.name, secret, scopes: row.scopes, created_at: row.createdAt };
}

/** The name of the per-node cache of resolved secret keys (deps.keyCache), by digest. */
export const SECRET_KEY_CACHE = 'secret-key';

export async function revokeSecretKey(deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>, keyId: string, auditCtx: AuditContext) {
  const row = await deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(secretKeys)
      .set({ revokedAt: sql`coalesce(${secretKeys.revokedAt}, ${deps.clock.now()})` })
      .where(eq(secretKeys.id, keyId))
      .returning();
    if (!updated) throw notFound('secret key');
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: updated.instanceId,
        ...auditCtx,
        action: 'secret_key.revoked',
        target: keyId,
      },
    );
    return updated;
  });
  // Refused at once on every node (Redis pub/sub or PostgreSQL NOTIFY), not after the cache's second.
  deps.cacheInvalidation.invalidate(SECRET_KEY_CACHE, row.digest);
  return { id: row.id, revoked_at: row.revokedAt };
}

const secretKeyView = (k: typeof secretKeys.$inferSelect) => ({
  id: k.id,
  name: k.name,
  hint: k.hint,
  scopes: k.scopes,
  created_at: k.createdAt,
  last_used_at: k.lastUsedAt,
  revoked_at: k.revokedAt,
});

export async function listSecretKeys(deps: Pick<Deps, 'db'>, instanceId: string) {
  const rows = await deps.db.select().from(secretKeys).where(eq(secretKeys.instanceId, instanceId));
  return rows.map(secretKeyView);
}

const lastUsedWritten = new Map<string, number>();
const LAST_USED_RESOLUTION_MS = 60_000;

/**
 * Resolves a presented secret to its key, through a cache whose entries live one
 * second, so a revocation is seen on every node within a second.
 */
export async function resolveSecretKey(deps: Deps, secret: string): Promise<ResolvedKey> {
  if (!isWellFormedSecret(secret)) throw new AppError('UNAUTHENTICATED', { message: 'The secret key is malformed.' });
  const digest = sha256Hex(secret);
  const now = deps.clock.now();
  let key = deps.keyCache.get(digest, now);
  if (key === undefined) {
    key = await lookupKey(deps, digest);
    deps.keyCache.set(digest, key, now);
  }
  if (!key || key.revoked || !constantTimeEqual(key.digest, digest)) throw new AppError('INVALID_KEY');
  touchLastUsed(deps, key.keyId, now);
  return key;
}

async function lookupKey(deps: Deps, digest: string): Promise<ResolvedKey | null> {
  const [row] = await keyLookupStatement(deps.db).execute({ digest });
  if (!row) return null;
  return {
    keyId: row.id,
    digest: row.digest,
    scopes: row.scopes,
    revoked: row.revokedAt !== null,
    instance: {
      id: row.instanceId,
      environment: row.environment,
      fapiUrl: row.fapiUrl,
      publishableKey: row.publishableKey,
      accountId: row.accountId,
    },
  };
}

/** Exported for its EXPLAIN test (sessions/query-plans.test.ts). */
export const keyLookupStatement = prepared((db) =>
  db
    .select({
      id: secretKeys.id,
      digest: secretKeys.digest,
      scopes: secretKeys.scopes,
      revokedAt: secretKeys.revokedAt,
      instanceId: instances.id,
      environment: instances.environment,
      fapiUrl: instances.fapiUrl,
      publishableKey: instances.publishableKey,
      accountId: instances.accountId,
    })
    .from(secretKeys)
    .innerJoin(instances, eq(instances.id, secretKeys.instanceId))
    .where(eq(secretKeys.digest, sql.placeholder('digest')))
    .prepare('secret_key_by_digest'),
);

/** `last_used_at` is kept to the minute: one write per key per minute, off the request path. */
function touchLastUsed(deps: Deps, keyId: string, now: number) {
  const last = lastUsedWritten.get(keyId) ?? 0;
  if (now - last < LAST_USED_RESOLUTION_MS) return;
  lastUsedWritten.set(keyId, now);
  deps.db
    .update(secretKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(secretKeys.id, keyId), isNull(secretKeys.revokedAt)))
    .catch((err: unknown) => deps.logger.warn({ err }, 'could not record key use'));
}
