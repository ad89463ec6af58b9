import type { Deps } from '../deps';
import type { apiKeys } from '../db/schema';

/**
 * Digest → key row (or null: no such key), per node. A revocation or change here is
 * published to every node (cacheInvalidation: Redis pub/sub with REDIS_URL); entries live
 * one second regardless, the bound on staleness without Redis or should a message be lost
 * (the same bound as the secret-key cache).
 */
const API_KEY_CACHE_TTL_MS = 1000;
const API_KEY_CACHE_SIZE = 50_000;
const API_KEY_CACHE = 'api-keys';

export const apiKeyCache = (deps: Pick<Deps, 'caches'>) =>
  deps.caches.get<typeof apiKeys.$inferSelect | null>(API_KEY_CACHE, API_KEY_CACHE_TTL_MS, API_KEY_CACHE_SIZE);

/** Every node forgets the key: at once here and, with REDIS_URL, in milliseconds elsewhere (else within the TTL). */
export const forgetApiKey = (deps: Pick<Deps, 'cacheInvalidation'>, digest: string) =>
  deps.cacheInvalidation.invalidate(API_KEY_CACHE, digest);
