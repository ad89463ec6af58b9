import { Redis } from 'ioredis';
import type { Logger } from './logger';
import type { CacheRegistry } from './ttl-cache';

export const INVALIDATION_CHANNEL = 'latchkey:cache-invalidation';

/**
 * Drops one entry of a named per-node cache (CacheRegistry) on every node: at once on this
 * one, and through Redis pub/sub on the others when REDIS_URL is set. Without Redis, or
 * should a message be lost, the entry's TTL still bounds how long another node serves it.
 */
export interface CacheInvalidation {
  invalidate(cache: string, key: string): void;
  /** Resolves once this node listens to the others (at once without Redis). */
  ready: Promise<void>;
  close(): void;
}

export function createCacheInvalidation(caches: CacheRegistry, opts: { redisUrl?: string; publisher: Redis | null; logger: Logger }): CacheInvalidation {
  const drop = (cache: string, key: string) => caches.drop(cache, key);
  const { publisher, redisUrl, logger } = opts;
  if (!publisher || !redisUrl) return { invalidate: drop, ready: Promise.resolve(), close() {} };

  // A connection in subscriber mode can do nothing else: a second one, for listening only.
  const subscriber = new Redis(redisUrl, { maxRetriesPerRequest: null });
  subscriber.on('error', (err: unknown) => logger.warn({ err }, 'cache invalidation subscriber'));
  subscriber.on('message', (_channel: string, message: string) => {
    try {
      const m = JSON.parse(message) as { cache?: unknown; key?: unknown };
      if (typeof m.cache === 'string' && typeof m.key === 'string') drop(m.cache, m.key);
    } catch {
      // Not ours; ignore.
    }
  });
  const ready = subscriber.subscribe(INVALIDATION_CHANNEL).then(
    () => undefined,
    (err: unknown) => logger.warn({ err }, 'could not subscribe to cache invalidations'),
  );
  return {
    invalidate(cache, key) {
      drop(cache, key);
      publisher.publish(INVALIDATION_CHANNEL, JSON.stringify({ cache, key })).catch((err: unknown) => logger.warn({ err }, 'could not publish a cache invalidation'));
    },
    ready,
    close: () => subscriber.disconnect(),
  };
}
