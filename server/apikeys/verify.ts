import { eq, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { prepared } from '../db/prepared';
import { apiKeys } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { AppError } from '../http/errors';
import type { Reason } from '../http/errors';
import { AK_RE, apiKeyView, matchesDigest, type ApiKeyRow } from './api-keys';
import { apiKeyCache } from './cache';

/** `last_used_at` is kept to the minute: each node writes a key's use at most once a minute. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Exported for its EXPLAIN test (sessions/query-plans.test.ts). */
export const byDigest = prepared((db) =>
  db
    .select()
    .from(apiKeys)
    .where(eq(apiKeys.digest, sql.placeholder('digest')))
    .prepare('api_key_by_digest'),
);

const invalid = (reason: Extract<Reason, 'unknown' | 'revoked' | 'expired'>) =>
  new AppError('API_KEY_INVALID', { message: `The API key is ${reason}.`, meta: { reason } });

/**
 * Whether a presented `ak_` secret is a live key of this instance, and whose: the key
 * (never its secret), or 404 API_KEY_INVALID with `unknown` (also another instance's key),
 * `revoked` or `expired`. Served from the per-node cache; one prepared query on a miss.
 */
export async function verifyApiKey(deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'logger'>, instanceId: string, secret: string) {
  if (!AK_RE.test(secret)) throw invalid('unknown');
  const digest = sha256Hex(secret);
  const now = deps.clock.now();
  const cache = apiKeyCache(deps);
  let row = cache.get(digest, now);
  if (row === undefined) {
    row = (await byDigest(deps.db).execute({ digest }))[0] ?? null;
    cache.set(digest, row, now);
  }
  if (!row || row.instanceId !== instanceId || !matchesDigest(row, digest)) throw invalid('unknown');
  if (row.revokedAt !== null) throw invalid('revoked');
  if (row.expiresAt !== null && row.expiresAt <= now) throw invalid('expired');
  return apiKeyView({ ...row, lastUsedAt: recordUse(deps, row, now) });
}

/** Writes the use at most once a minute per key and node, off the request path; answers the last use to show. */
function recordUse(deps: Pick<Deps, 'db' | 'caches' | 'logger'>, row: ApiKeyRow, now: number): number {
  const written = deps.caches.get<number>('api-key-last-used', LAST_USED_RESOLUTION_MS);
  const last = written.get(row.id, now);
  if (last !== undefined) return Math.max(last, row.lastUsedAt ?? 0);
  written.set(row.id, now, now);
  deps.db
    .update(apiKeys)
    .set({ lastUsedAt: sql`greatest(coalesce(${apiKeys.lastUsedAt}, 0), ${now})` })
    .where(eq(apiKeys.id, row.id))
    .catch((err: unknown) => deps.logger.warn({ err }, 'could not record API key use'));
  return now;
}
