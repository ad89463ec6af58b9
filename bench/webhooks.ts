/**
 * Webhook delivery, measured by `npm run bench` (target `webhooks`):
 *
 *   throughput  a backlog of BENCH_WEBHOOK_EVENTS user.created events is queued while no worker
 *               runs; then one `npm run worker` (CPU 0) drains it to a local receiver:
 *               events/s = deliveries between the first and the last arrival ÷ that time
 *   latency     with the worker idle, POST /v1/users at BENCH_WEBHOOK_RATE per second for
 *               BENCH_WEBHOOK_SECONDS; latency = arrival at the receiver − the event's timestamp
 *               (taken in the transaction of the change), p50 and p99
 *
 *   big backlog BENCH_WEBHOOK_BIG_BACKLOG messages (e.g. 100000; 0, the default, skips it)
 *               written straight into the outbox (copies of a delivered one) while the worker
 *               runs: events/s draining them, and the worker's RSS (its process tree, sampled
 *               every 500 ms) before and at most: memory must stay bounded by the batch, not
 *               grow with the backlog
 *
 * The changes are made through `npm run api` (CPU 1, its own worker off), on a test instance
 * with ALLOW_PRIVATE_WEBHOOK_TARGETS=1 so the receiver can listen on 127.0.0.1.
 */
import type { ChildProcess } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import postgres from 'postgres';

export interface BenchServer {
  name: string;
  child: ChildProcess;
  port: number;
  output: () => string;
}

export interface WebhookBenchHelpers {
  cli(args: string[]): Promise<unknown>;
  startServer(name: string, cmd: string, args: string[], port: number, extraEnv: Record<string, string>, cpu: number | null): BenchServer;
  waitFor(server: BenchServer, pathname: string, timeoutMs: number): Promise<void>;
  stop(child: ChildProcess): Promise<void>;
  log(msg: string): void;
  /** POSTs JSON (10 s timeout); answers the status and the parsed body, or null. */
  post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: Record<string, unknown> | null }>;
}

export interface WebhookBenchResult {
  backlog: number;
  deliveredPerSecond: number;
  /** The big backlog's drain (null when skipped). */
  big: { messages: number; deliveredPerSecond: number; rssBeforeMiB: number; rssMaxMiB: number } | null;
  latencyRate: number;
  latencySeconds: number;
  latencySamples: number;
  p50: number;
  p99: number;
  max: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

interface Arrival {
  at: number;
  eventTimestamp: number;
}

function startReceiver() {
  const arrivals: Arrival[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.timeOrigin + performance.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { timestamp: number };
      arrivals.push({ at, eventTimestamp: body.timestamp });
      res.writeHead(204).end();
    });
  });
  return new Promise<{ url: string; arrivals: Arrival[]; close: () => void }>((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
        arrivals,
        close: () => {
          server.closeAllConnections();
          server.close();
        },
      }),
    ),
  );
}

async function waitUntil(check: () => boolean, timeoutMs: number, what: string) {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`webhooks bench: timed out waiting for ${what}`);
    await sleep(20);
  }
}

export async function measureWebhooks(
  h: WebhookBenchHelpers,
  opts: { port: number; backlog: number; rate: number; seconds: number; bigBacklog: number; databaseUrl: string },
): Promise<WebhookBenchResult> {
  const instance = (await h.cli(['instance', 'create', '--name', 'Webhooks bench', '--env', 'test', '--json'])) as { instance_id: string };
  const key = (await h.cli(['keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--json'])) as { secret: string };
  const auth = { authorization: `Bearer ${key.secret}` };
  const receiver = await startReceiver();
  const env = { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' };
  const api = h.startServer('webhooks: npm run api (no worker)', 'npm', ['run', 'api'], opts.port, { ...env, WEBHOOK_WORKER: '0' }, 1);
  let worker: BenchServer | null = null;
  let seq = 0;
  const createUser = async () => {
    const n = ++seq;
    const res = await h.post(`http://127.0.0.1:${opts.port}/v1/users`, auth, { email_address: [`wh${n}@example.com`] });
    if (res.status !== 200) throw new Error(`POST /v1/users → ${res.status}`);
  };
  try {
    await h.waitFor(api, '/readyz', 120_000);
    const ep = await h.post(`http://127.0.0.1:${opts.port}/v1/webhook_endpoints`, auth, {
      url: receiver.url,
      event_types: ['user.created'],
    });
    if (ep.status !== 200) throw new Error(`POST /v1/webhook_endpoints → ${ep.status} ${JSON.stringify(ep.body)}`);

    h.log(`webhooks: queueing a backlog of ${opts.backlog} user.created events (no worker running)`);
    let made = 0;
    await Promise.all(
      Array.from({ length: 10 }, async () => {
        while (made < opts.backlog) {
          made++;
          await createUser();
        }
      }),
    );
    h.log('webhooks: one worker (npm run worker, CPU 0) drains it');
    worker = h.startServer('webhooks: npm run worker', 'npm', ['run', 'worker'], opts.port + 1, env, 0);
    await waitUntil(() => receiver.arrivals.length >= opts.backlog, 300_000, `${opts.backlog} deliveries`);
    const drained = receiver.arrivals.slice(0, opts.backlog);
    const span = (drained.at(-1)!.at - drained[0]!.at) / 1000;
    const deliveredPerSecond = (drained.length - 1) / span;

    h.log(`webhooks: latency at ${opts.rate} events/s for ${opts.seconds}s`);
    await sleep(1000);
    const before = receiver.arrivals.length;
    const total = Math.round(opts.rate * opts.seconds);
    const start = performance.now();
    const inFlight: Promise<void>[] = [];
    for (let i = 0; i < total; i++) {
      const due = start + (i * 1000) / opts.rate;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      inFlight.push(createUser());
    }
    await Promise.all(inFlight);
    await waitUntil(() => receiver.arrivals.length >= before + total, 60_000, `${total} latency deliveries`);
    const latencies = receiver.arrivals
      .slice(before)
      .map((a) => a.at - a.eventTimestamp)
      .sort((a, b) => a - b);
    const big = opts.bigBacklog > 0 ? await drainBigBacklog(h, opts, worker, receiver.arrivals) : null;
    return {
      backlog: opts.backlog,
      deliveredPerSecond,
      big,
      latencyRate: opts.rate,
      latencySeconds: opts.seconds,
      latencySamples: latencies.length,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies.at(-1) ?? NaN,
    };
  } finally {
    if (worker) await h.stop(worker.child);
    await h.stop(api.child);
    receiver.close();
  }
}

/** RSS of a process and its descendants (npm → sh → node), MiB. */
function treeRssMiB(pid: number): number {
  let kib = 0;
  const visit = (p: number) => {
    try {
      kib += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
      for (const t of readdirSync(`/proc/${p}/task`)) {
        for (const c of readFileSync(`/proc/${p}/task/${t}/children`, 'utf8').split(' ').filter(Boolean)) visit(Number(c));
      }
    } catch {
      /* exited */
    }
  };
  visit(pid);
  return kib / 1024;
}

async function drainBigBacklog(
  h: WebhookBenchHelpers,
  opts: { bigBacklog: number; databaseUrl: string },
  worker: BenchServer,
  arrivals: Arrival[],
) {
  const sql = postgres(opts.databaseUrl, { max: 1, onnotice: () => {} });
  try {
    h.log(`webhooks: a backlog of ${opts.bigBacklog} messages written into the outbox, drained by the running worker`);
    const rssBeforeMiB = treeRssMiB(worker.child.pid!);
    let rssMaxMiB = rssBeforeMiB;
    const sampler = setInterval(() => (rssMaxMiB = Math.max(rssMaxMiB, treeRssMiB(worker.child.pid!))), 500);
    const before = arrivals.length;
    await sql`
      insert into webhook_messages (id, instance_id, endpoint_id, event_id, event_type, status, attempts, round_attempts, next_attempt_at, locked_until, created_at, updated_at)
      select 'msg_bench' || lpad(g::text, 17, '0') || substr(md5(random()::text), 1, 4), m.instance_id, m.endpoint_id, m.event_id, m.event_type, 'pending', 0, 0, m.created_at, null, m.created_at, m.created_at
      from (select * from webhook_messages where status = 'succeeded' limit 1) m, generate_series(1, ${opts.bigBacklog}) g`;
    try {
      await waitUntil(() => arrivals.length >= before + opts.bigBacklog, 1_800_000, `${opts.bigBacklog} backlog deliveries`);
    } finally {
      clearInterval(sampler);
    }
    const drained = arrivals.slice(before, before + opts.bigBacklog);
    return {
      messages: opts.bigBacklog,
      deliveredPerSecond: (drained.length - 1) / ((drained.at(-1)!.at - drained[0]!.at) / 1000),
      rssBeforeMiB,
      rssMaxMiB,
    };
  } finally {
    await sql.end({ timeout: 1 });
  }
}
