import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import { sql } from 'drizzle-orm';
import * as schema from './schema';
import { withAfterCommit } from './after-commit';
import { StatementCache, withStatementCache } from './statement-cache';
import { Admission, withAdmission } from './admission';
import { onDriverFault } from './driver-guard';

type Schema = typeof schema;
/** A database handle or a transaction: domain functions accept either. */
export type Db = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  migrate(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
  /** PGlite only: the data directory as a tarball, which `openPglite(null, { loadDataDir })` starts from. */
  dumpDataDir?(): Promise<Blob>;
  /** PostgreSQL only: statements sent, and operations running, waiting for a connection and refused (server/db/admission.ts). */
  stats?(): { statements: number; running: number; waiting: number; refused: number };
  /** LISTEN on a channel (NOTIFY is delivered at commit); returns the UNLISTEN. */
  listen?(channel: string, onNotify: (payload: string) => void): Promise<() => Promise<void>>;
}

/** Distinct statement texts each connection may keep prepared (DATABASE_PREPARED_STATEMENTS). */
const DEFAULT_PREPARED_STATEMENTS = 1000;

const MIGRATIONS_DIR = path.resolve(process.cwd(), 'drizzle');
const MIGRATION_LOCK = 7_301_994_211;

export interface PostgresOptions {
  /** Connections (DATABASE_POOL_SIZE): operations that run at once. */
  max?: number;
  preparedStatements?: number;
  /** Operations that may wait for a connection (DATABASE_QUEUE), each at most `queueTimeoutMs`. */
  queue?: number;
  queueTimeoutMs?: number;
  /** Seconds to open a connection (DATABASE_CONNECT_TIMEOUT). */
  connectTimeout?: number;
}

/**
 * Seconds before a connection is opened again after one failed. postgres.js's default grows
 * with every failure of the whole pool (3^n / 100 s, up to 20 s), and a request whose query
 * waits for that connection waits as long: a 3-second outage left requests waiting 19 s and
 * the nodes serving again only 13 to 16 s after PostgreSQL was back. Short and capped, a
 * request during an outage fails fast (503 with Retry-After: the client's retry is the
 * backoff) and the first one after it gets through.
 */
const reconnectDelay = (failures: number) => Math.min(0.05 * failures, 0.5);

export function openPostgres(url: string, opts: PostgresOptions = {}): Database {
  const max = opts.max ?? 10;
  const open = (n: number) =>
    postgres(url, {
      max: n,
      connect_timeout: opts.connectTimeout ?? 5,
      backoff: reconnectDelay,
      onnotice: () => {},
      // No JIT: a prepared statement's generic plan prices `limit $n` at a tenth of the rows, so on a large
      // instance a 20-row page (users, members) crossed jit_above_cost and compiled on every execution:
      // 130 ms of LLVM per call for a 0.4 ms query at 1,000,000 users. No parallel workers either: a
      // request's statement is short, and workers only take the cores the other requests need (a member
      // search over a domain 100,000 members share: 27 ms with two workers, 16 ms without).
      connection: { application_name: 'latchkey', jit: 'off', max_parallel_workers_per_gather: '0' },
    });
  let client = open(max);
  // LISTEN keeps a connection of its own, outside the pool (which a driver fault replaces).
  const listener = open(1);
  const unregister = onDriverFault(() => {
    const old = client;
    client = open(max);
    void old.end({ timeout: 0 }).catch(() => {});
  });
  const statements = new StatementCache(opts.preparedStatements ?? DEFAULT_PREPARED_STATEMENTS);
  // postgres.js queues without bound when every connection is busy: the admission bounds it.
  const admission = new Admission(max, opts.queue ?? 100, opts.queueTimeoutMs ?? 5000);
  const db = withAfterCommit(
    drizzlePostgres(
      withStatementCache(
        withAdmission(() => client, admission),
        statements,
      ),
      { schema },
    ) as unknown as Db,
  );
  return {
    db,
    kind: 'postgres',
    async migrate() {
      // Several nodes may start at once: one migrates, the others wait on the lock.
      const single = postgres(url, { max: 1, onnotice: () => {} });
      try {
        await single`select pg_advisory_lock(${MIGRATION_LOCK})`;
        await migratePostgres(drizzlePostgres(single), { migrationsFolder: MIGRATIONS_DIR });
        await single`select pg_advisory_unlock(${MIGRATION_LOCK})`;
      } finally {
        await single.end();
      }
    },
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      unregister();
      await Promise.all([client.end({ timeout: 5 }), listener.end({ timeout: 5 })]);
    },
    stats: () => ({ statements: statements.sent, ...admission.load, refused: admission.refused }),
    async listen(channel, onNotify) {
      const sub = await listener.listen(channel, (payload) => onNotify(payload));
      return () => sub.unlisten();
    },
  };
}

/**
 * Embedded PGlite: `dataDir` on disk, or memory when dataDir is null. `loadDataDir` starts it
 * from a data-directory dump (`dumpDataDir`) instead of running initdb (tests: a migrated copy).
 */
export async function openPglite(dataDir: string | null, opts: { loadDataDir?: Blob } = {}): Promise<Database> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  // pg_trgm: the trigram indexes of user search (the migrations create the extension).
  const client = await PGlite.create({
    ...(dataDir ? { dataDir } : {}),
    ...(opts.loadDataDir ? { loadDataDir: opts.loadDataDir } : {}),
    extensions: { pg_trgm },
  });
  const db = withAfterCommit(drizzlePglite(client, { schema }) as unknown as Db);
  return {
    db,
    kind: 'pglite',
    dumpDataDir: () => client.dumpDataDir('none'),
    migrate: () => migratePglite(db as never, { migrationsFolder: MIGRATIONS_DIR }),
    async ping() {
      await client.query('select 1');
    },
    close: () => client.close(),
    async listen(channel, onNotify) {
      const unsub = await client.listen(channel, (payload) => onNotify(payload));
      return () => unsub();
    },
  };
}
