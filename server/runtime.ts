import path from 'node:path';
import { Redis } from 'ioredis';
import type { DestinationStream } from 'pino';
import { loadConfig, type Config } from './config';
import { openPglite, openPostgres, type Database } from './db/client';
import { postgresDriverPatched, survivePostgresWriteAfterClose } from './db/driver-guard';
import { acquireLock, releaseLock, type EmbeddedLock } from './db/embedded-lock';
import { Resolver, resolveTxt } from 'node:dns/promises';
import { systemClock, type Clock, type Deps, type TxtResolver } from './deps';
import { createLimiter, MemoryLimiterStore, RedisLimiterStore } from './infra/limiter';
import { createLogger } from './infra/logger';
import { createMetrics } from './infra/metrics';
import { CacheRegistry } from './infra/ttl-cache';
import { SECRET_KEY_CACHE } from './keys/secret-keys';
import { createCacheInvalidation } from './infra/invalidation';
import { createCipher, loadEncryptionKey } from './crypto/cipher';
import { createSmtpMailer, type Mailer } from './infra/mail-transport';
import { systemResolver, type DnsResolver } from './infra/ssrf';
import { pendingMessageCount } from './webhooks/delivery';
import { PasswordPool } from './users/password-pool';
import { openGeoIpDatabase } from './protection/geoip';

export interface Runtime {
  deps: Deps;
  database: Database;
  /** Set when this process serves the embedded store: the CLI may call through it. */
  lock: EmbeddedLock | null;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  clock?: Clock;
  logDestination?: DestinationStream;
  /** Use this database instead of opening one from the config (tests). */
  database?: Database;
  /** The port a server listens on, published to the CLI through the lock file. */
  port?: number | null;
  defaultMetrics?: boolean;
  /** Use this email transport instead of one from SMTP_URL (tests); null = dev outbox. */
  mailer?: Mailer | null;
  /** Host name resolution for outbound requests (tests point names at chosen addresses). */
  dns?: DnsResolver;
  /** A server process (not a test or the CLI): outlive postgres.js's write-after-close bug (server/db/driver-guard.ts). */
  survivesDriverCrash?: boolean;
  /** TXT resolver (tests); default node:dns/promises. */
  txtResolver?: TxtResolver;
}

export async function createRuntime(config: Config, opts: RuntimeOptions = {}): Promise<Runtime> {
  const logger = createLogger(config.LOG_LEVEL, opts.logDestination);
  if (config.DATABASE_URL && opts.survivesDriverCrash) {
    survivePostgresWriteAfterClose(logger);
    if (!postgresDriverPatched())
      logger.error(
        'postgres.js is not patched (installed with --ignore-scripts?): run `npx patch-package`, or requests may wait on connections PostgreSQL closed (docs/production.md)',
      );
  }
  // Before the database opens: a missing key must stop the start, not a later request.
  const cipher = createCipher(loadEncryptionKey(config, logger));
  const geoip = config.GEOIP_DATABASE ? openGeoIpDatabase(config.GEOIP_DATABASE) : null;
  if (geoip)
    logger.info(
      { database_type: geoip.databaseType, built_at: geoip.builtAt.toISOString() },
      'GeoIP country lookups on (risk-based MFA counts new countries)',
    );
  let lock: EmbeddedLock | null = null;
  let database = opts.database;
  if (!database) {
    if (config.DATABASE_URL) {
      database = openPostgres(config.DATABASE_URL, {
        max: config.DATABASE_POOL_SIZE,
        preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
        queue: config.DATABASE_QUEUE,
        queueTimeoutMs: config.DATABASE_QUEUE_TIMEOUT * 1000,
        connectTimeout: config.DATABASE_CONNECT_TIMEOUT,
      });
    } else {
      lock = acquireLock(config.DATA_DIR, opts.port ?? null);
      try {
        database = await openPglite(path.join(config.DATA_DIR, 'pgdata'));
      } catch (err) {
        releaseLock(config.DATA_DIR);
        throw err;
      }
    }
    await database.migrate();
  }
  const redis = config.REDIS_URL ? new Redis(config.REDIS_URL, { maxRetriesPerRequest: 2, enableOfflineQueue: true }) : null;
  // Reconnects on its own; while it is away rate limits are per node and invalidations wait for the TTLs.
  let redisWarnedAt = 0;
  redis?.on('error', (err: unknown) => {
    if (Date.now() - redisWarnedAt < 60_000) return;
    redisWarnedAt = Date.now();
    logger.warn({ err }, 'redis connection error');
  });
  const caches = new CacheRegistry();
  const ownMailer = opts.mailer === undefined && config.SMTP_URL ? createSmtpMailer(config.SMTP_URL) : null;
  const deps: Deps = {
    db: database.db,
    config,
    clock: opts.clock ?? systemClock,
    logger,
    limiter: createLimiter(
      redis
        ? new RedisLimiterStore(redis, undefined, {
            onDegraded: (err) => logger.warn({ err }, 'rate limits are per node: redis does not answer'),
          })
        : new MemoryLimiterStore(),
    ),
    metrics: createMetrics({
      defaultMetrics: opts.defaultMetrics,
      webhookQueueDepth: () => pendingMessageCount(deps),
      database: database.stats,
    }),
    keyCache: caches.get(SECRET_KEY_CACHE, 1000),
    caches,
    cacheInvalidation: createCacheInvalidation(caches, { redisUrl: config.REDIS_URL, publisher: redis, logger, database }),
    cipher,
    mailer: opts.mailer !== undefined ? opts.mailer : ownMailer,
    dns: opts.dns ?? systemResolver,
    txtResolver: opts.txtResolver ?? txtResolverFor(config.DNS_RESOLVER),
    passwords: new PasswordPool({
      threads: config.PASSWORD_HASH_THREADS,
      queue: config.PASSWORD_HASH_QUEUE,
      argon2: {
        memoryCost: config.PASSWORD_ARGON2_MEMORY_KIB,
        timeCost: config.PASSWORD_ARGON2_TIME,
        parallelism: config.PASSWORD_ARGON2_PARALLELISM,
      },
    }),
    ...(geoip ? { geoip: geoip.lookup } : {}),
  };
  const db = database;
  return {
    deps,
    database: db,
    lock,
    async close() {
      deps.cacheInvalidation.close();
      await db.close();
      await deps.passwords.close();
      ownMailer?.close?.();
      if (redis) redis.disconnect();
      if (lock) releaseLock(config.DATA_DIR);
    },
  };
}

/** TXT lookups through DNS_RESOLVER's servers when set, else the system's resolver. */
function txtResolverFor(servers: string[] | undefined): TxtResolver {
  if (!servers) return { resolveTxt };
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  resolver.setServers(servers);
  return { resolveTxt: (name) => resolver.resolveTxt(name) };
}

const SHARED = Symbol.for('latchkey.runtime');
type Holder = { [SHARED]?: Promise<Runtime> };

/**
 * One runtime per process, kept on globalThis: the custom server and the Next.js
 * route handlers (bundled separately) must share one database handle.
 */
export function sharedRuntime(): Promise<Runtime> {
  const holder = globalThis as Holder;
  holder[SHARED] ??= createRuntime(loadConfig(), { port: Number(process.env.PORT ?? 3000), defaultMetrics: true });
  return holder[SHARED];
}

export function setSharedRuntime(runtime: Runtime) {
  (globalThis as Holder)[SHARED] = Promise.resolve(runtime);
}
