import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A production-like deployment of its own, for the fault suite (faults/) and the fault
 * bench (bench/faults.ts): PostgreSQL servers started here (initdb + pg_ctl in a temporary
 * directory on a free port, trust auth; a streaming standby made with pg_basebackup), a
 * Redis (`redis-server`), API nodes and webhook workers as child processes, and a mixed load
 * that records every answer. Never the shared servers: everything here is stopped and killed.
 */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const srv = createServer()
      .once('error', () => resolve(false))
      .listen(port, '127.0.0.1', () => srv.close(() => resolve(true)));
  });

let nextFixed = Number(process.env.FAULTS_PORT_BASE ?? 0);
/** A free TCP port: the next free one from FAULTS_PORT_BASE when set (a shared machine's own range), else one the kernel picks. */
export async function freePort(): Promise<number> {
  if (nextFixed) {
    for (; nextFixed < 65_535; nextFixed++) if (await isFree(nextFixed)) return nextFixed++;
  }
  return new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}

// ---------------------------------------------------------------- PostgreSQL

const PG_BIN = ['/usr/lib/postgresql/16/bin', '/usr/lib/postgresql/15/bin', '/usr/lib/postgresql/17/bin'].find((d) =>
  existsSync(path.join(d, 'initdb')),
);
const asRoot = process.getuid?.() === 0;

/** Runs a PostgreSQL program (as the `postgres` user when we are root: initdb refuses root). */
function pgRun(args: string[], timeoutMs = 120_000) {
  const program = PG_BIN && !args[0]!.includes('/') ? path.join(PG_BIN, args[0]!) : args[0]!;
  const [cmd, a] = asRoot ? ['runuser', ['-u', 'postgres', '--', program, ...args.slice(1)]] : [program, args.slice(1)];
  const out = spawnSync(cmd, a, { encoding: 'utf8', timeout: timeoutMs });
  if (out.status !== 0) throw new Error(`${args.join(' ')}: ${out.stderr || out.stdout || out.error?.message}`);
  return out.stdout;
}

/** Whether this machine can start PostgreSQL servers (initdb, and a `postgres` user when root) and Redis of its own. */
export function canStartServers(): boolean {
  if (!PG_BIN && spawnSync('initdb', ['--version']).status !== 0) return false;
  if (spawnSync('redis-server', ['--version']).status !== 0) return false;
  return !asRoot || spawnSync('id', ['-u', 'postgres']).status === 0;
}

function ownedTempDir(prefix: string) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  if (asRoot) {
    const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
    chownSync(dir, id('-u'), id('-g'));
  }
  return dir;
}

export interface PostgresServer {
  port: number;
  /** The `postgres` database, to create others. */
  adminUrl: string;
  start(): void;
  /** pg_ctl stop: `fast` (a restart's shutdown: sessions are told and closed) or `immediate` (a crash). */
  stop(mode?: 'fast' | 'immediate'): void;
  /** A standby becomes a primary (pg_ctl promote, waiting until it accepts writes). */
  promote(): void;
  remove(): void;
}

function postgresServer(dir: string, data: string, port: number): PostgresServer {
  const opts = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=32MB -c fsync=off`;
  const ctl = (...args: string[]) => pgRun(['pg_ctl', '-D', data, ...args]);
  return {
    port,
    adminUrl: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => ctl('-l', path.join(data, '..', `log-${port}`), '-o', opts, '-w', '-t', '60', 'start'),
    stop: (mode = 'fast') => ctl('-m', mode, '-w', '-t', '60', 'stop'),
    promote: () => ctl('-w', '-t', '60', 'promote'),
    remove() {
      try {
        ctl('-m', 'immediate', '-w', 'stop');
      } catch {
        /* not running */
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A primary on a free port, started. `synchronousStandby` names the standby a commit waits for (see `postgresStandby`). */
export async function postgresPrimary(opts: { synchronousStandby?: string } = {}): Promise<PostgresServer> {
  const dir = ownedTempDir('latchkey-pg-');
  const data = path.join(dir, 'data');
  pgRun(['initdb', '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions']);
  if (opts.synchronousStandby)
    appendFileSync(data + '/postgresql.conf', `\nsynchronous_standby_names = '${opts.synchronousStandby}'\nsynchronous_commit = on\n`);
  const server = postgresServer(dir, data, await freePort());
  server.start();
  return server;
}

/** A streaming-replication standby of `primary` (pg_basebackup), on a free port, started; `name` is its application_name. */
export async function postgresStandby(primary: PostgresServer, name = 'standby'): Promise<PostgresServer> {
  const dir = ownedTempDir('latchkey-pg-standby-');
  const data = path.join(dir, 'data');
  pgRun(['pg_basebackup', '-D', data, '-h', '127.0.0.1', '-p', String(primary.port), '-U', 'postgres', '-X', 'stream', '-R']);
  // After the line -R wrote: the standby's name, which synchronous_standby_names refers to.
  // Promoted, it has no standby of its own: a synchronous_standby_names copied from the primary would hold every commit.
  appendFileSync(
    data + '/postgresql.auto.conf',
    `\nprimary_conninfo = 'host=127.0.0.1 port=${primary.port} user=postgres application_name=${name}'\nsynchronous_standby_names = ''\n`,
  );
  const server = postgresServer(dir, data, await freePort());
  server.start();
  return server;
}

// ---------------------------------------------------------------- processes

const live = new Set<ChildProcess>();
export const exited = (c: ChildProcess) =>
  new Promise<void>((r) => (c.exitCode !== null || c.signalCode !== null ? r() : c.once('exit', () => r())));

/** Kills a child's whole process group (a node's cluster workers with it). */
export function killGroup(child: ChildProcess, signal: NodeJS.Signals = 'SIGKILL') {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    /* gone */
  }
}

/** Kills every process started here (afterAll, or on the way out of a bench). */
export async function killAll() {
  const all = [...live];
  for (const c of all) killGroup(c);
  await Promise.all(all.map(exited));
}

function startProcess(cmd: string, args: string[], env: Record<string, string>) {
  // Its own process group (detached), so a kill reaches everything it forks.
  const child = spawn(cmd, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let tail = '';
  const keep = (d: Buffer) => (tail = (tail + d.toString()).slice(-8000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  live.add(child);
  child.once('exit', () => live.delete(child));
  return { child, output: () => tail };
}

const listening = (port: number) =>
  new Promise<boolean>((resolve) => {
    const c = connect(port, '127.0.0.1', () => (c.end(), resolve(true)));
    c.on('error', () => resolve(false));
  });

export async function redisServer() {
  const port = await freePort();
  let proc: ChildProcess | null = null;
  return {
    url: `redis://127.0.0.1:${port}`,
    async start() {
      proc = startProcess('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {}).child;
      for (let i = 0; i < 200; i++) {
        if (await listening(port)) return;
        await sleep(50);
      }
      throw new Error('redis-server did not start');
    },
    async stop() {
      if (!proc) return;
      killGroup(proc);
      await exited(proc);
      proc = null;
    },
  };
}

export interface Node {
  name: string;
  base: string;
  child: ChildProcess;
  output(): string;
}

/**
 * `server/main/api.ts` (ready when /readyz answers) or `server/main/worker.ts` (ready when it
 * logs that it started: it runs at LOG_LEVEL info at least), with `env`.
 */
export async function startNode(name: string, script: string, env: Record<string, string>): Promise<Node> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const api = script.endsWith('api.ts');
  const logLevel: Record<string, string> =
    !api && ['error', 'warn', 'silent', 'fatal'].includes(env.LOG_LEVEL ?? '') ? { LOG_LEVEL: 'info' } : {};
  const p = startProcess(process.execPath, ['--import', 'tsx', script], {
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    ...env,
    ...logLevel,
  });
  const ready = api
    ? () =>
        fetch(`${base}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.ok,
          () => false,
        )
    : async () => p.output().includes('webhook worker started');
  const deadline = Date.now() + 120_000;
  while (!(await ready())) {
    if (Date.now() > deadline || p.child.exitCode !== null) throw new Error(`${name} did not start:\n${p.output()}`);
    await sleep(200);
  }
  return { name, base, child: p.child, output: p.output };
}

export const rssMiB = (pid: number) => {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : NaN;
  } catch {
    return NaN;
  }
};

// ---------------------------------------------------------------- load

export interface Sample {
  at: number;
  node: string;
  op: string;
  status: number;
  ms: number;
  retryAfter: boolean;
}

export interface LoadContext {
  secret: string;
  userIds: string[];
  /** User id → the scenario that created it (acknowledged creates). */
  acked: Map<string, string>;
  scenario: string;
}

/** Longest a load request waits for its answer: past it, it counts as hung (status 0). */
const HANG_MS = 30_000;

export async function call(base: string, method: string, pathname: string, secret: string, body?: unknown) {
  const started = performance.now();
  try {
    const res = await fetch(`${base}${pathname}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(HANG_MS),
    });
    const json = (await res.json().catch(() => null)) as Record<string, unknown> | null;
    return { status: res.status, json, ms: performance.now() - started, retryAfter: res.headers.has('retry-after') };
  } catch {
    return { status: 0, json: null, ms: performance.now() - started, retryAfter: false };
  }
}

export type Step = (node: Node, ctx: LoadContext, samples: Sample[], t0: number) => Promise<void>;

let seq = 0;
/** One mixed step on `node`: create a user (a write), read a user, mint and verify a session. */
export const mixedStep: Step = async (node, ctx, samples, t0) => {
  const n = seq++;
  const record = (op: string, r: { status: number; ms: number; retryAfter: boolean }) =>
    samples.push({ at: Date.now() - t0, node: node.name, op, status: r.status, ms: r.ms, retryAfter: r.retryAfter });
  switch (n % 3) {
    case 0: {
      const r = await call(node.base, 'POST', '/v1/users', ctx.secret, {
        email_address: [`f${n}.${randomBytes(3).toString('hex')}@faults.example.com`],
      });
      record('create user', r);
      if (r.status === 200 && typeof r.json?.id === 'string') {
        ctx.acked.set(r.json.id, ctx.scenario);
        ctx.userIds.push(r.json.id);
      }
      return;
    }
    case 1: {
      const id = ctx.userIds[n % ctx.userIds.length]!;
      record('get user', await call(node.base, 'GET', `/v1/users/${id}`, ctx.secret));
      return;
    }
    default: {
      const id = ctx.userIds[n % ctx.userIds.length]!;
      const minted = await call(node.base, 'POST', '/v1/sessions', ctx.secret, { user_id: id });
      record('mint session', minted);
      if (minted.status === 200)
        record('verify', await call(node.base, 'POST', '/v1/sessions/verify', ctx.secret, { token: minted.json?.jwt }));
    }
  }
};

/** A read of a user: what the connection storm sends. */
export const readStep: Step = async (node, ctx, samples, t0) => {
  const id = ctx.userIds[seq++ % ctx.userIds.length]!;
  const r = await call(node.base, 'GET', `/v1/users/${id}`, ctx.secret);
  samples.push({ at: Date.now() - t0, node: node.name, op: 'get user', status: r.status, ms: r.ms, retryAfter: r.retryAfter });
};

/** `clients` loops, each stepping on the nodes in turn, until `stop` resolves; a failed step pauses its client 50 ms (a client's backoff). */
export async function load(
  nodes: () => Node[],
  ctx: LoadContext,
  clients: number,
  stop: Promise<unknown>,
  t0: number,
  step: Step = mixedStep,
) {
  const samples: Sample[] = [];
  let done = false;
  void stop.then(() => (done = true));
  let turn = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!done) {
        const ns = nodes();
        const before = samples.length;
        await step(ns[turn++ % ns.length]!, ctx, samples, t0);
        if (samples.slice(before).some((s) => s.status !== 200)) await sleep(50);
      }
    }),
  );
  return samples;
}

export interface Summary {
  requests: number;
  failed: number;
  statuses: Record<string, number>;
  /** 503 answers that carried Retry-After. */
  unavailableWithRetryAfter: number;
  /** Failed answers other than a 503 with Retry-After (and no answer at all). */
  otherFailures: number;
  maxMs: number;
  p99Ms: number;
  /** Requests unanswered after HANG_MS. */
  hung: number;
  /** Seconds from `faultEndAt` (ms after t0) to the end of the last failed request (0: none after it). */
  recoverSeconds: number;
}

export function summarise(samples: Sample[], faultEndAt: number): Summary {
  const failed = samples.filter((s) => s.status < 200 || s.status >= 300);
  const statuses: Record<string, number> = {};
  for (const s of samples) {
    const k = s.status === 0 ? 'no answer' : String(s.status);
    statuses[k] = (statuses[k] ?? 0) + 1;
  }
  const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
  const lastFailure = failed.reduce((m, s) => Math.max(m, s.at), -Infinity);
  const unavailableWithRetryAfter = samples.filter((s) => s.status === 503 && s.retryAfter).length;
  return {
    requests: samples.length,
    failed: failed.length,
    statuses,
    unavailableWithRetryAfter,
    otherFailures: failed.length - unavailableWithRetryAfter,
    maxMs: Math.round(ms.at(-1) ?? 0),
    p99Ms: Math.round(ms[Math.floor(ms.length * 0.99)] ?? 0),
    hung: samples.filter((s) => s.status === 0 && s.ms >= HANG_MS - 100).length,
    recoverSeconds: Number.isFinite(lastFailure) ? Math.max(0, (lastFailure - faultEndAt) / 1000) : 0,
  };
}
