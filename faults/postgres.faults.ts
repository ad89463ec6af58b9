import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import {
  canStartServers,
  exited,
  killGroup,
  postgresPrimary,
  readStep,
  redisServer,
  rssMiB,
  sleep,
  type PostgresServer,
} from '../server/testing/deployment';
import { required } from '../server/testing/requirements';
import { LEASE_SECONDS, startCluster, type Cluster } from './cluster';

/**
 * Issue 46: the faults a production deployment meets, on a PostgreSQL and a Redis started
 * here, two API nodes and a webhook worker as processes, under a mixed load (create a user,
 * read one, mint a session and verify it). Each scenario asserts the contract: no request
 * hangs (every one is answered, success or 503 with Retry-After), the nodes serve again
 * within 5 s of PostgreSQL accepting connections, no acknowledged write is lost, and every
 * acknowledged user's user.created reaches the receiver within the claim lease plus 10 s.
 */
const CLIENTS = 12;
/** Longest any answer may take: the database's connect timeout (5 s) and a margin for a loaded machine. */
const ANSWER_BOUND_MS = 8000;
const RECOVER_SECONDS = 5;

let pg: PostgresServer;
let redis: Awaited<ReturnType<typeof redisServer>>;
let c: Cluster;

describe.skipIf(!required('initdb/pg_ctl (PostgreSQL server binaries) and redis-server', canStartServers(), 'the fault suite'))(
  'faults: PostgreSQL restarted and crashed, Redis down, a connection storm, a node killed',
  () => {
    beforeAll(async () => {
      pg = await postgresPrimary();
      redis = await redisServer();
      await redis.start();
      const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe('create database latchkey');
      await admin.end();
      c = await startCluster(pg.adminUrl.replace(/\/postgres$/, '/latchkey'), {
        REDIS_URL: redis.url,
        // Room for every storm client on one node: the storm is shed by the wait bound (a request waits at
        // most DATABASE_QUEUE_TIMEOUT, 5 s, behind the 6 s lock), never by the queue bound. With the default
        // 100, 200 closed-loop clients round-robined over two nodes pile up on the slower one (A also delivers
        // webhooks) and fill its queue now and then in normal running, long after the lock: that is
        // overload shedding, which this scenario does not measure, and it read as a late recovery.
        DATABASE_QUEUE: '400',
      });
    }, 240_000);

    afterAll(async () => {
      await c?.close();
      await redis?.stop();
      pg?.remove();
    });

    const restarted = (mode: 'fast' | 'immediate') => async () => {
      const r = await c.scenario(mode, CLIENTS, async () => {
        pg.stop(mode);
        await sleep(3000);
        pg.start(); // returns once PostgreSQL accepts connections
      });
      report(mode === 'fast' ? 'PostgreSQL restarted' : 'PostgreSQL crashed', r);
      expect(c.died()).toEqual([]);
      expect(r.hung).toBe(0);
      expect(r.otherFailures).toBe(0);
      expect(r.maxMs).toBeLessThan(ANSWER_BOUND_MS);
      expect(r.unavailableWithRetryAfter).toBeGreaterThan(0);
      expect(r.recoverSeconds).toBeLessThanOrEqual(RECOVER_SECONDS);
      expect(await c.lostWrites(mode)).toMatchObject({ lost: 0 });
      const d = await c.deliveredOf(mode, (LEASE_SECONDS + 10) * 1000 - (Date.now() - r.t0 - r.endAt));
      report(`  webhooks after ${mode}`, d);
      expect(d.missing).toBe(0);
      // No worker died: every attempt's outcome was known, so none went out twice.
      expect(d.duplicated).toBe(0);
    };

    it(
      'PostgreSQL restarted (fast shutdown) under load: 503 with Retry-After meanwhile, serving again within 5 s, nothing lost',
      restarted('fast'),
      120_000,
    );

    it('PostgreSQL crashed (immediate stop) under load: the same', restarted('immediate'), 120_000);

    it('Redis down under load: nothing fails, and nothing after it returns', async () => {
      const r = await c.scenario('redis', CLIENTS, async () => {
        await redis.stop();
        await sleep(4000);
        await redis.start();
      });
      report('Redis down', r);
      expect(c.died()).toEqual([]);
      expect(r.failed).toBe(0);
      expect(await c.lostWrites('redis')).toMatchObject({ lost: 0 });
    }, 120_000);

    it('a connection storm (statements on users blocked behind a lock, 200 clients): shed with 503 database_busy, memory bounded, served again after', async () => {
      const before = rssMiB(c.A.child.pid!);
      let max = before;
      const sampler = setInterval(() => (max = Math.max(max, rssMiB(c.A.child.pid!))), 200);
      const r = await c.scenario(
        'storm',
        200,
        async () => {
          const holder = postgres(pg.adminUrl.replace(/\/postgres$/, '/latchkey'), { max: 1, onnotice: () => {} });
          await holder.begin(async (tx) => {
            await tx`lock table users in access exclusive mode`;
            await tx`select pg_sleep(6)`;
          });
          await holder.end();
        },
        { step: readStep },
      );
      clearInterval(sampler);
      expect(c.died()).toEqual([]);
      report('connection storm', { ...r, rss: { before: Math.round(before), max: Math.round(max) } });
      expect(r.hung).toBe(0);
      expect(r.otherFailures).toBe(0);
      expect(r.unavailableWithRetryAfter).toBeGreaterThan(0);
      // A request waits its turn (DATABASE_QUEUE_TIMEOUT, 5 s) and then, admitted, for the lock (6 s): slow, not dead.
      expect(r.maxMs).toBeLessThan(6000 + 5000 + 1000);
      expect(r.recoverSeconds).toBeLessThanOrEqual(RECOVER_SECONDS);
      expect(max - before).toBeLessThan(300);
    }, 120_000);

    it('node A (delivering webhooks) killed under load: B serves on, nothing lost, every acknowledged event delivered within the lease plus 10 s', async () => {
      const r = await c.scenario('kill', CLIENTS, async () => {
        killGroup(c.A.child);
        await exited(c.A.child);
        // A load balancer's health check takes A out.
        await sleep(1000);
        c.setNodes([c.B]);
      });
      report('node killed', r);
      expect(c.died(c.A)).toEqual([]);
      expect(r.hung).toBe(0);
      // Only requests in flight on A when it died (or sent to it before the health check) fail.
      expect(r.samples.filter((s) => s.status !== 200 && (s.node !== 'A' || s.at > r.endAt + 500))).toEqual([]);
      expect(await c.lostWrites('kill')).toMatchObject({ lost: 0 });
      const d = await c.deliveredOf('kill', (LEASE_SECONDS + 10) * 1000 - (Date.now() - r.t0 - r.endAt));
      report('  webhooks after the kill', d);
      expect(d.missing).toBe(0);
    }, 120_000);
  },
);

function report(label: string, r: object) {
  const { samples, ...rest } = r as { samples?: { at: number; ms: number; op: string; node: string; status: number }[] };
  const slowest = (samples ?? [])
    .toSorted((a, b) => b.ms - a.ms)
    .slice(0, 3)
    .map((s) => `${s.node} ${s.op} ${s.status} ${Math.round(s.ms)} ms ending at ${s.at}`);
  const { endAt } = rest as { endAt?: number };
  // Failures ending after the fault did: what a late recovery is made of (node, how long it waited, when).
  const late = (samples ?? [])
    .filter((s) => s.status !== 200 && endAt !== undefined && s.at > endAt)
    .slice(-5)
    .map((s) => `${s.node} ${s.op} ${s.status} ${Math.round(s.ms)} ms ending at ${s.at}`);
  process.stderr.write(
    `[faults] ${label}: ${JSON.stringify(rest)}${slowest.length ? ` slowest: ${slowest.join('; ')}` : ''}` +
      `${late.length ? ` last failures after the fault: ${late.join('; ')}` : ''}\n`,
  );
}
