/**
 * `npm run bench:faults` (also a target of `npm run bench`: BENCH_TARGETS=faults): the faults a
 * production deployment meets, each scripted against a deployment of its own
 * (server/testing/deployment.ts, shared with the fault suite faults/): a PostgreSQL
 * started here (initdb + pg_ctl, a temporary data directory, a free port, trust auth), a Redis
 * started here (`redis-server --port <free> --save ''`), two API nodes (`server/main/api.ts`,
 * one process each; node A also delivers webhooks) and one webhook worker
 * (`server/main/worker.ts`). Never the shared servers: they are stopped and killed here.
 *
 * Scenarios (BENCH_FAULTS, comma-separated; default all), each under mixed load (create a
 * user, read one, mint a session and verify it; `BENCH_FAULT_CLIENTS` in flight across both
 * nodes):
 *   postgres  PostgreSQL stopped (fast shutdown) for BENCH_FAULT_PG_SECONDS (default 5), then
 *             started again: the nodes must answer 503 + Retry-After meanwhile, never hang,
 *             and serve again without a restart of their own.
 *   redis     Redis stopped for BENCH_FAULT_REDIS_SECONDS (default 10; the issue's minute is
 *             60): requests go on (rate limits per node), a secret key revoked meanwhile is
 *             refused by the other node once its cache entry expires; after Redis returns a
 *             revocation reaches the other node at once again.
 *   kill      node A (the one delivering webhooks) killed with SIGKILL mid-traffic: node B
 *             serves on, every acknowledged user exists, and every acknowledged user's
 *             user.created reaches the receiver at least once (the worker takes over A's
 *             claims when their lease ends; waits up to BENCH_FAULT_WEBHOOK_WAIT s, default 90).
 *   storm     every statement on `users` held behind a lock for BENCH_FAULT_STORM_SECONDS
 *             (default 8) while BENCH_FAULT_STORM_CLIENTS (default 200) clients read users: the
 *             nodes' pools fill, requests queue up to DATABASE_QUEUE for DATABASE_QUEUE_TIMEOUT,
 *             then are shed with 503 + Retry-After; the nodes' RSS is sampled.
 *
 * Reported per scenario: requests, failed (non-2xx or no answer), 503 with Retry-After, the
 * longest answer, time to recover (from the fault's end to the last failure), writes
 * acknowledged and lost. Prints a table and one JSON line; writes bench/results/faults.json.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync, mkdirSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import {
  call,
  exited,
  freePort,
  killAll,
  load,
  mixedStep,
  postgresPrimary,
  readStep,
  redisServer,
  ROOT,
  rssMiB,
  sleep,
  startNode,
  summarise as summariseSamples,
  type LoadContext as Ctx,
  type Node,
  type Sample,
} from '../server/testing/deployment';

const env = process.env;
const num = (name: string, dflt: number) => Number(env[name] ?? dflt);
const CLIENTS = num('BENCH_FAULT_CLIENTS', 10);
const PG_DOWN = num('BENCH_FAULT_PG_SECONDS', 5);
const REDIS_DOWN = num('BENCH_FAULT_REDIS_SECONDS', 10);
const STORM = num('BENCH_FAULT_STORM_SECONDS', 8);
const STORM_CLIENTS = num('BENCH_FAULT_STORM_CLIENTS', 200);
const WEBHOOK_WAIT = num('BENCH_FAULT_WEBHOOK_WAIT', 90);
/** Load before and after each fault, seconds. */
const CALM = num('BENCH_FAULT_CALM_SECONDS', 3);
const ONLY = env.BENCH_FAULTS ? new Set(env.BENCH_FAULTS.split(',').map((s) => s.trim())) : null;
const ENCRYPTION_KEY = randomBytes(32).toString('hex');

const log = (msg: string) => process.stderr.write(`[faults] ${msg}\n`);

interface ScenarioResult {
  scenario: string;
  fault: string;
  requests: number;
  failed: number;
  statuses: Record<string, number>;
  unavailableWithRetryAfter: number;
  maxMs: number;
  p99Ms: number;
  /** Seconds from the fault's end to the last failed request (0: none after it). */
  recoverSeconds: number;
  writesAcknowledged: number;
  writesLost: number;
  notes: string[];
}

function summarise(
  scenario: string,
  fault: string,
  samples: Sample[],
  faultEndAt: number,
  notes: string[],
): Omit<ScenarioResult, 'writesAcknowledged' | 'writesLost'> {
  const { requests, failed, statuses, unavailableWithRetryAfter, maxMs, p99Ms, recoverSeconds } = summariseSamples(samples, faultEndAt);
  return { scenario, fault, requests, failed, statuses, unavailableWithRetryAfter, maxMs, p99Ms, recoverSeconds, notes };
}

// ---------------------------------------------------------------- main

async function main() {
  const results: ScenarioResult[] = [];
  const pg = await postgresPrimary();
  const redis = await redisServer();
  const pgUrl = pg.adminUrl.replace(/\/postgres$/, '/latchkey');
  let admin: postgres.Sql | null = null;
  try {
    log(`PostgreSQL on 127.0.0.1:${pg.port}, Redis at ${redis.url} (both started here, removed at the end)`);
    await redis.start();
    const setup = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
    await setup.unsafe('create database latchkey');
    await setup.end();
    admin = postgres(pgUrl, { max: 2, onnotice: () => {} });

    const common = {
      DATABASE_URL: pgUrl,
      REDIS_URL: redis.url,
      ENCRYPTION_KEY,
      LOG_LEVEL: env.BENCH_FAULT_LOG_LEVEL ?? 'error',
      NODE_ENV: 'production',
      ALLOW_PRIVATE_WEBHOOK_TARGETS: '1',
      WEB_CONCURRENCY: '1',
      BAPI_RATE_LIMIT: '100000000',
      SHUTDOWN_TIMEOUT: '3',
    };
    log('starting node A (with webhook delivery), node B and a webhook worker');
    const A = await startNode('A', 'server/main/api.ts', { ...common, WEBHOOK_WORKER: '1' });
    const B = await startNode('B', 'server/main/api.ts', { ...common, WEBHOOK_WORKER: '0' });
    const worker = await startNode('worker', 'server/main/worker.ts', common);
    const nodes: Node[] = [A, B];

    // The instance, its key, a webhook receiver and endpoint, through an in-process runtime.
    const { loadConfig } = await import('../server/config');
    const { createRuntime } = await import('../server/runtime');
    const { createInstance, defaultAccount } = await import('../server/instances/instances');
    const { createSecretKey, revokeSecretKey } = await import('../server/keys/secret-keys');
    const { createEndpoint } = await import('../server/webhooks/webhook-endpoints');
    const { systemContext } = await import('../server/http/actor');
    const runtime = await createRuntime(loadConfig({ ...common, LOG_LEVEL: 'silent' }));
    await runtime.deps.cacheInvalidation.ready;
    const account = await defaultAccount(runtime.deps);
    const instance = await createInstance(runtime.deps, { accountId: account.id, name: 'Faults', environment: 'test' });
    const secret = (await createSecretKey(runtime.deps, { instanceId: instance.id, scopes: '*' }, systemContext('faults'))).secret;
    const delivered = new Map<string, number>(); // user id → deliveries
    const receiver = createHttpServer((req, res) => {
      let body = '';
      req.on('data', (d: Buffer) => (body += d.toString()));
      req.on('end', () => {
        try {
          const e = JSON.parse(body) as { type?: string; data?: { id?: string } };
          if (e.type === 'user.created' && e.data?.id) delivered.set(e.data.id, (delivered.get(e.data.id) ?? 0) + 1);
        } catch {
          /* not an event */
        }
        res.writeHead(200).end();
      });
    });
    const rxPort = await freePort();
    await new Promise<void>((r) => receiver.listen(rxPort, '127.0.0.1', () => r()));
    await createEndpoint(
      runtime.deps,
      { id: instance.id, environment: 'test' },
      { url: `http://127.0.0.1:${rxPort}/hooks`, event_types: ['user.created'] },
      { actor: 'faults' },
    );

    const ctx: Ctx = { secret, userIds: [], acked: new Map(), scenario: 'seed' };
    for (let i = 0; i < 10; i++) {
      const r = await call(A.base, 'POST', '/v1/users', secret, { email_address: [`seed${i}@faults.example.com`] });
      if (r.status !== 200) throw new Error(`seeding: ${r.status} ${JSON.stringify(r.json)}`);
      ctx.userIds.push(String(r.json!.id));
      ctx.acked.set(String(r.json!.id), 'seed');
    }

    const want = (s: string) => !ONLY || ONLY.has(s);
    const lost = async (scenario: string) => {
      const ids = [...ctx.acked].filter(([, s]) => s === scenario).map(([id]) => id);
      if (ids.length === 0) return { acked: 0, lost: 0 };
      const found = await admin!<{ id: string }[]>`select id from users where id = any(${ids})`;
      return { acked: ids.length, lost: ids.length - found.length };
    };
    const run = async (
      scenario: string,
      fault: string,
      clients: number,
      inject: (t0: number) => Promise<{ endAt: number; notes: string[] }>,
      live: () => Node[] = () => nodes,
    ) => {
      log(`${scenario}: ${fault}`);
      ctx.scenario = scenario;
      const t0 = Date.now();
      let finish!: () => void;
      const stop = new Promise<void>((r) => (finish = r));
      const loading = load(live, ctx, clients, stop, t0, mixedStep);
      await sleep(CALM * 1000);
      const { endAt, notes } = await inject(t0);
      await sleep(CALM * 1000);
      finish();
      const samples = await loading;
      const w = await lost(scenario);
      const r: ScenarioResult = { ...summarise(scenario, fault, samples, endAt, notes), writesAcknowledged: w.acked, writesLost: w.lost };
      results.push(r);
      log(
        `  ${r.requests} requests, ${r.failed} failed (${JSON.stringify(r.statuses)}), longest ${r.maxMs} ms, recovered ${r.recoverSeconds.toFixed(1)} s after, ${r.writesLost}/${r.writesAcknowledged} writes lost`,
      );
      return r;
    };

    if (want('postgres')) {
      await run('postgres', `PostgreSQL stopped (fast) for ${PG_DOWN}s under load, then started`, CLIENTS, async (t0) => {
        pg.stop();
        const downAt = Date.now() - t0;
        await sleep(PG_DOWN * 1000);
        pg.start();
        const endAt = Date.now() - t0;
        return { endAt, notes: [`down ${((endAt - downAt) / 1000).toFixed(1)} s`] };
      });
    }

    if (want('redis')) {
      await run('redis', `Redis stopped for ${REDIS_DOWN}s under load, then started`, CLIENTS, async (t0) => {
        const notes: string[] = [];
        // A key that node B has cached, revoked on another node while Redis is away.
        const staleness = async (label: string) => {
          const key = await createSecretKey(runtime.deps, { instanceId: instance.id, scopes: '*' }, systemContext('faults'));
          for (let i = 0; i < 3; i++) await call(B.base, 'GET', '/v1/users?limit=1', key.secret);
          const at = Date.now();
          await revokeSecretKey(runtime.deps, key.id, systemContext('faults'));
          while (Date.now() - at < 30_000) {
            if ((await call(B.base, 'GET', '/v1/users?limit=1', key.secret)).status === 401) break;
            await sleep(20);
          }
          notes.push(`${label}: a revoked key refused by the other node after ${((Date.now() - at) / 1000).toFixed(2)} s`);
        };
        await staleness('Redis up');
        await redis.stop();
        await sleep(1000);
        await staleness('Redis down');
        await sleep(Math.max(0, REDIS_DOWN * 1000 - 1000 - 2000));
        await redis.start();
        const endAt = Date.now() - t0;
        await sleep(2000);
        await staleness('Redis back');
        return { endAt, notes };
      });
    }

    if (want('storm')) {
      const rss = { before: [rssMiB(A.child.pid!), rssMiB(B.child.pid!)], max: [0, 0] };
      const sampler = setInterval(() => {
        rss.max[0] = Math.max(rss.max[0]!, rssMiB(A.child.pid!));
        rss.max[1] = Math.max(rss.max[1]!, rssMiB(B.child.pid!));
      }, 250);
      ctx.scenario = 'storm';
      log(`storm: every statement on users held behind a lock for ${STORM}s, ${STORM_CLIENTS} clients reading users`);
      const t0 = Date.now();
      let finish!: () => void;
      const stop = new Promise<void>((r) => (finish = r));
      const loading = load(() => nodes, ctx, STORM_CLIENTS, stop, t0, readStep);
      await sleep(CALM * 1000);
      const holder = postgres(pgUrl, { max: 1, onnotice: () => {} });
      await holder.begin(async (tx) => {
        await tx`lock table users in access exclusive mode`;
        await tx`select pg_sleep(${STORM})`;
      });
      await holder.end();
      const endAt = Date.now() - t0;
      await sleep(CALM * 1000);
      finish();
      const samples = await loading;
      clearInterval(sampler);
      const after = [rssMiB(A.child.pid!), rssMiB(B.child.pid!)];
      const r = summarise('storm', `statements on users blocked ${STORM}s, ${STORM_CLIENTS} clients`, samples, endAt, [
        `RSS MiB A ${rss.before[0]!.toFixed(0)} → max ${rss.max[0]!.toFixed(0)} → ${after[0]!.toFixed(0)}, B ${rss.before[1]!.toFixed(0)} → max ${rss.max[1]!.toFixed(0)} → ${after[1]!.toFixed(0)}`,
      ]);
      results.push({ ...r, writesAcknowledged: 0, writesLost: 0 });
      log(`  ${r.requests} requests, ${r.failed} failed (${JSON.stringify(r.statuses)}), longest ${r.maxMs} ms; ${r.notes.join('; ')}`);
    }

    if (want('kill')) {
      let alive: Node[] = nodes;
      const r = await run(
        'kill',
        'node A (delivering webhooks) killed with SIGKILL under load',
        CLIENTS,
        async (t0) => {
          A.child.kill('SIGKILL');
          await exited(A.child);
          const endAt = Date.now() - t0;
          // The load balancer's health check takes A out after its interval; until then requests to A fail.
          await sleep(1000);
          alive = [B];
          return { endAt, notes: ['the client rotation drops A 1 s after the kill (a load balancer health check)'] };
        },
        () => alive,
      );
      const expected = [...ctx.acked].filter(([, s]) => s !== 'seed').map(([id]) => id);
      const started = Date.now();
      while (Date.now() - started < WEBHOOK_WAIT * 1000 && expected.some((id) => !delivered.has(id))) await sleep(500);
      const missing = expected.filter((id) => !delivered.has(id)).length;
      const twice = expected.filter((id) => (delivered.get(id) ?? 0) > 1).length;
      r.notes.push(
        `webhooks: ${expected.length - missing}/${expected.length} acknowledged users' user.created delivered (${twice} more than once) within ${((Date.now() - started) / 1000).toFixed(1)} s after the load`,
      );
      log(`  ${r.notes.at(-1)}`);
    }

    if (env.BENCH_FAULT_LOG_LEVEL) for (const n of [A, B, worker]) log(`${n.name} output (tail):\n${n.output()}`);
    await runtime.close();
    receiver.close();
    for (const n of [A, B, worker]) if (n.child.exitCode === null) n.child.kill('SIGTERM');
    await Promise.all([A, B, worker].map((n) => Promise.race([exited(n.child), sleep(5000)])));
  } finally {
    await killAll();
    await admin?.end({ timeout: 1 }).catch(() => {});
    await redis.stop().catch(() => {});
    pg.remove();
  }

  const rows = results.map((r) => [
    r.scenario,
    String(r.requests),
    String(r.failed),
    String(r.unavailableWithRetryAfter),
    String(r.maxMs),
    r.recoverSeconds.toFixed(1),
    `${r.writesLost}/${r.writesAcknowledged}`,
  ]);
  const head = ['scenario', 'requests', 'failed', '503+Retry-After', 'longest ms', 'recovered s', 'writes lost'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  process.stdout.write(`\n${[line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')}\n`);
  for (const r of results)
    process.stdout.write(
      `${r.scenario}: ${r.fault}; statuses ${JSON.stringify(r.statuses)}${r.notes.length ? `; ${r.notes.join('; ')}` : ''}\n`,
    );
  mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
  writeFileSync(
    path.join(ROOT, 'bench', 'results', 'faults.json'),
    `${JSON.stringify({ date: new Date().toISOString(), loadAverage: os.loadavg(), results }, null, 2)}\n`,
  );
  process.stdout.write(`${JSON.stringify(results)}\n`);
  return results;
}

process.on('SIGINT', () => {
  void killAll().finally(() => process.exit(130));
});

main().then(
  () => process.exit(0),
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    void killAll().finally(() => process.exit(1));
  },
);
