import { createServer } from 'node:net';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { Admission, DatabaseBusyError } from './admission';
import { openPostgres } from './client';
import { createHarness } from '../testing/harness';
import { raceTest } from '../testing/races';

/** A port nothing listens on: connections to it are refused at once. */
const closedPort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

describe('admission to the database', () => {
  it('runs `slots` at once, queues up to the bound, refuses past it and after the wait', async () => {
    const a = new Admission(1, 1, 100);
    let release!: () => void;
    const first = a.run(() => new Promise<string>((r) => (release = () => r('first'))));
    const second = a.run(async () => 'second');
    await expect(a.run(async () => 'third')).rejects.toMatchObject({ why: 'queue_full' });
    expect(a.load).toEqual({ running: 1, waiting: 1 });
    release();
    await expect(first).resolves.toBe('first');
    await expect(second).resolves.toBe('second');
    expect(a.load).toEqual({ running: 0, waiting: 0 });

    const held = a.run(() => new Promise((r) => setTimeout(r, 400)));
    const started = Date.now();
    const late = await a.run(async () => 'late').catch((e: unknown) => e);
    expect(late).toBeInstanceOf(DatabaseBusyError);
    expect((late as DatabaseBusyError).why).toBe('wait_timeout');
    expect(Date.now() - started).toBeLessThan(350);
    await held;
    await expect(a.run(async () => 'again')).resolves.toBe('again');
  });
});

describe('what a client sees when the database fails', () => {
  it('the database unreachable: 503 database_unavailable with Retry-After, at once', async () => {
    const database = openPostgres(`postgres://postgres@127.0.0.1:${await closedPort()}/none`, { max: 2 });
    const h = await createHarness({ database });
    try {
      const started = Date.now();
      const res = await h.call('GET', '/v1/users', { key: 'sk_test_aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('2');
      expect(res.body.errors[0]).toMatchObject({ code: 'SERVICE_UNAVAILABLE', meta: { reason: 'database_unavailable', retry_after: 2 } });
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await h.close();
      await database.close();
    }
  });

  raceTest('every connection busy past the wait bound: 503 database_busy with Retry-After', async () => {
    const shared = await createHarness();
    const i = await shared.createInstance();
    // A second node of the same database with one connection, waits of 200 ms at most.
    const one = openPostgres(process.env.DATABASE_URL!.replace(/\/[^/]*$/, `/${await dbName(shared)}`), {
      max: 1,
      queue: 5,
      queueTimeoutMs: 200,
    });
    const h = await createHarness({ database: one });
    try {
      let release!: () => void;
      const holding = one.db.transaction(() => new Promise<void>((r) => (release = r)));
      await new Promise((r) => setTimeout(r, 50));
      const res = await h.call('GET', '/v1/users', { key: i.secret });
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(res.body.errors[0].meta).toMatchObject({ reason: 'database_busy', retry_after: 1 });
      release();
      await holding;
      expect((await h.call('GET', '/v1/users', { key: i.secret })).status).toBe(200);
    } finally {
      await h.close();
      await one.close();
      await shared.close();
    }
  });
});

/** The database a harness runs on (a fresh one per test file on PostgreSQL). */
async function dbName(h: Awaited<ReturnType<typeof createHarness>>): Promise<string> {
  const rows = (await h.runtime.database.db.execute(sql`select current_database() as name`)) as unknown as { name: string }[];
  return rows[0]!.name;
}
