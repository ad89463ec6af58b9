import { sql } from 'drizzle-orm';
import { Redis } from 'ioredis';
import type { Database } from '../db/client';
import type { Logger } from './logger';
import type { CacheRegistry } from './ttl-cache';

export const INVALIDATION_CHANNEL = 'latchkey:cache-invalidation';
/** The PostgreSQL LISTEN/NOTIFY channel, when there is no Redis. */
export const PG_INVALIDATION_CHANNEL = 'latchkey_cache_invalidation';

/**
 * Drops one entry of a named per-node cache (CacheRegistry) on every node: at once on this
 * one, and on the others through Redis pub/sub when REDIS_URL is set, else through
 * PostgreSQL LISTEN/NOTIFY (DATABASE_URL; the embedded store is one process, nothing to
 * tell). Should a message be lost, the entry's TTL still bounds how long another node
 * serves it.
 */
export interface CacheInvalidation {
  invalidate(cache: string, key: string): void;
  /** Resolves once this node listens to the others (at once without Redis). */
  ready: Promise<void>;
  close(): void;
}

export function createCacheInvalidation(
  caches: CacheRegistry,
  opts: { redisUrl?: string; publisher: Redis | null; logger: Logger; database?: Pick<Database, 'kind' | 'db' | 'listen'> },
): CacheInvalidation {
  const drop = (cache: string, key: string) => caches.drop(cache, key);
  const { publisher, redisUrl, logger, database } = opts;
  const onMessage = (message: string) => {
    try {
      const m = JSON.parse(message) as { cache?: unknown; key?: unknown };
      if (typeof m.cache === 'string' && typeof m.key === 'string') drop(m.cache, m.key);
    } catch {
      // Not ours; ignore.
    }
  };
  if (!publisher || !redisUrl) {
    if (database?.kind !== 'postgres' || !database.listen) return { invalidate: drop, ready: Promise.resolve(), close() {} };
    return pgInvalidation(database as Required<Pick<Database, 'db' | 'listen'>>, drop, onMessage, logger);
  }

  // A connection in subscriber mode can do nothing else: a second one, for listening only.
  const subscriber = new Redis(redisUrl, { maxRetriesPerRequest: null });
  subscriber.on('error', (err: unknown) => logger.warn({ err }, 'cache invalidation subscriber'));
  subscriber.on('message', (_channel: string, message: string) => onMessage(message));
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

/** NOTIFY on PostgreSQL's channel; every node (this one too) LISTENs and drops the entry. */
function pgInvalidation(
  database: Required<Pick<Database, 'db' | 'listen'>>,
  drop: (cache: string, key: string) => void,
  onMessage: (message: string) => void,
  logger: Logger,
): CacheInvalidation {
  let unlisten: (() => Promise<void>) | undefined;
  let closed = false;
  const ready = database.listen(PG_INVALIDATION_CHANNEL, onMessage).then(
    (u) => {
      if (closed) void u().catch(() => {});
      else unlisten = u;
    },
    (err: unknown) => logger.warn({ err }, 'could not LISTEN for cache invalidations'),
  );
  return {
    invalidate(cache, key) {
      drop(cache, key);
      database.db
        .execute(sql`select pg_notify(${PG_INVALIDATION_CHANNEL}, ${JSON.stringify({ cache, key })})`)
        .catch((err: unknown) => logger.warn({ err }, 'could not NOTIFY a cache invalidation'));
    },
    ready,
    close() {
      closed = true;
      void unlisten?.().catch(() => {});
    },
  };
}
