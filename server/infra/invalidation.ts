import { Redis } from 'ioredis';
import type { Database } from '../db/client';
import type { Logger } from './logger';
import type { CacheRegistry } from './ttl-cache';
import { notifySql } from './statements';

const INVALIDATION_CHANNEL = 'latchkey:cache-invalidation';
/** The PostgreSQL LISTEN/NOTIFY channel, when there is no Redis. */
export const PG_INVALIDATION_CHANNEL = 'latchkey_cache_invalidation';
/** NOTIFY payloads stay under PostgreSQL's 8000 bytes: ids of ~30 characters, 100 a message. */
const MAX_KEYS_PER_MESSAGE = 100;

/**
 * Drops one entry of a named per-node cache (CacheRegistry) on every node: at once on this
 * one, and on the others through Redis pub/sub when REDIS_URL is set, else through
 * PostgreSQL LISTEN/NOTIFY (DATABASE_URL; the embedded store is one process, nothing to
 * tell). Should a message be lost, the entry's TTL still bounds how long another node
 * serves it.
 */
export interface CacheInvalidation {
  invalidate(cache: string, key: string): void;
  /** Several entries of one cache in one message. */
  invalidateMany(cache: string, keys: readonly string[]): void;
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
      const m = JSON.parse(message) as { cache?: unknown; key?: unknown; keys?: unknown };
      if (typeof m.cache !== 'string') return;
      if (typeof m.key === 'string') drop(m.cache, m.key);
      if (Array.isArray(m.keys)) for (const k of m.keys) if (typeof k === 'string') drop(m.cache, k);
    } catch {
      // Not ours; ignore.
    }
  };
  if (!publisher || !redisUrl) {
    if (database?.kind !== 'postgres' || !database.listen) {
      return {
        invalidate: drop,
        invalidateMany: (cache, keys) => keys.forEach((k) => drop(cache, k)),
        ready: Promise.resolve(),
        close() {},
      };
    }
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
  const publish = (message: object) =>
    publisher
      .publish(INVALIDATION_CHANNEL, JSON.stringify(message))
      .catch((err: unknown) => logger.warn({ err }, 'could not publish a cache invalidation'));
  return {
    invalidate(cache, key) {
      drop(cache, key);
      void publish({ cache, key });
    },
    invalidateMany(cache, keys) {
      for (const k of keys) drop(cache, k);
      for (let i = 0; i < keys.length; i += MAX_KEYS_PER_MESSAGE) void publish({ cache, keys: keys.slice(i, i + MAX_KEYS_PER_MESSAGE) });
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
  const notify = (message: object) =>
    database.db
      .execute(notifySql(PG_INVALIDATION_CHANNEL, message))
      .catch((err: unknown) => logger.warn({ err }, 'could not NOTIFY a cache invalidation'));
  return {
    invalidate(cache, key) {
      drop(cache, key);
      void notify({ cache, key });
    },
    invalidateMany(cache, keys) {
      for (const k of keys) drop(cache, k);
      for (let i = 0; i < keys.length; i += MAX_KEYS_PER_MESSAGE) void notify({ cache, keys: keys.slice(i, i + MAX_KEYS_PER_MESSAGE) });
    },
    ready,
    close() {
      closed = true;
      void unlisten?.().catch(() => {});
    },
  };
}
