import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import postgres from 'postgres';
import { canStartServers, postgresPrimary, postgresStandby, sleep, type PostgresServer } from '../server/testing/deployment';
import { required } from '../server/testing/requirements';
import { LEASE_SECONDS, startCluster, type Cluster } from './cluster';

/**
 * Issue 46: failover to a standby. A primary and a streaming-replication standby it commits
 * synchronously to (synchronous_standby_names), both started here; the nodes' DATABASE_URL
 * names both hosts with target_session_attrs=read-write. The primary dies (immediate stop:
 * a crash), the standby is promoted, and the nodes follow without a restart: no request
 * hangs, they serve again within 5 s of the promotion, no acknowledged write is lost, and
 * the webhook events go out from the new primary.
 */
const CLIENTS = 12;
const ANSWER_BOUND_MS = 8000;
const RECOVER_SECONDS = 5;

let primary: PostgresServer;
let standby: PostgresServer;
let c: Cluster;

const url = (...servers: PostgresServer[]) =>
  `postgres://postgres@${servers.map((s) => `127.0.0.1:${s.port}`).join(',')}/latchkey?target_session_attrs=read-write`;

describe.skipIf(!required('initdb/pg_ctl (PostgreSQL server binaries) and redis-server', canStartServers(), 'the failover test'))(
  'faults: the primary dies and its standby is promoted',
  () => {
    beforeAll(async () => {
      primary = await postgresPrimary({ synchronousStandby: 'standby' });
      standby = await postgresStandby(primary, 'standby');
      const admin = postgres(primary.adminUrl, { max: 1, onnotice: () => {} });
      await admin.unsafe('create database latchkey');
      await admin.end();
      c = await startCluster(url(primary, standby));
    }, 240_000);

    afterAll(async () => {
      await c?.close();
      primary?.remove();
      standby?.remove();
    });

    it('the nodes follow the promoted standby without a restart; nothing acknowledged is lost; events are delivered', async () => {
      const r = await c.scenario('failover', CLIENTS, async () => {
        primary.stop('immediate');
        await sleep(2000);
        standby.promote(); // returns once the standby accepts writes
      });
      const slowest = r.samples
        .toSorted((a, b) => b.ms - a.ms)
        .slice(0, 3)
        .map((s) => `${s.node} ${s.op} ${s.status} ${Math.round(s.ms)} ms ending at ${s.at}`);
      process.stderr.write(`[faults] failover: ${JSON.stringify({ ...r, samples: undefined })} slowest: ${slowest.join('; ')}\n`);
      expect(r.hung).toBe(0);
      expect(r.otherFailures).toBe(0);
      expect(r.maxMs).toBeLessThan(ANSWER_BOUND_MS);
      expect(r.recoverSeconds).toBeLessThanOrEqual(RECOVER_SECONDS);
      // Every user acknowledged before, during and after the failover is on the new primary.
      expect(await c.lostWrites('seed', url(standby))).toMatchObject({ lost: 0 });
      expect(await c.lostWrites('failover', url(standby))).toMatchObject({ lost: 0 });
      const d = await c.deliveredOf('failover', (LEASE_SECONDS + 10) * 1000 - (Date.now() - r.t0 - r.endAt));
      process.stderr.write(`[faults]   webhooks after the failover: ${JSON.stringify(d)}\n`);
      expect(d.missing).toBe(0);
      expect(d.duplicated).toBe(0);
    }, 180_000);
  },
);
