import type { Deps } from '../deps';
import type { apiKeys } from '../db/schema';

/**
 * Digest → key row (or null: no such key), per node. Entries live one second, the bound
 * on how long another node may still accept a key revoked here (the same mechanism as
 * the secret-key cache); the node that revokes forgets the key at once.
 */
export const API_KEY_CACHE_TTL_MS = 1000;
const API_KEY_CACHE_SIZE = 50_000;

export const apiKeyCache = (deps: Pick<Deps, 'caches'>) =>
  deps.caches.get<typeof apiKeys.$inferSelect | null>('api-keys', API_KEY_CACHE_TTL_MS, API_KEY_CACHE_SIZE);

export const forgetApiKey = (deps: Pick<Deps, 'caches'>, digest: string) => apiKeyCache(deps).delete(digest);
