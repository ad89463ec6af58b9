/**
 * `npm run bench`: autocannon against the backend API on PostgreSQL, through every way
 * Latchkey can serve it, next to two ceilings, in one run.
 *
 *   next      `next start`: the Next.js route handler app/v1/[[...path]]/route.ts
 *   start     `npm start`: the custom server's fast path (API prefixes straight to Hono)
 *   api       `npm run api`: the API alone
 *   bare      ceiling: bare node:http answering a fixed JSON body (bench/ceiling-bare.ts)
 *   db        ceiling: bare node:http + one prepared postgres.js query (bench/ceiling-db.ts)
 *   composite ceilings of each hot row, one core (bench/ceiling-db.ts with CEILING_CRYPTO=1): node:http
 *             + one prepared query + one RS256 verification (verify); + one prepared write (the
 *             rotation) + one RS256 signature (refresh); + the application look-up + one RS256
 *             signature (client_credentials); + the one query the answer needs (users, lists, API keys).
 *             Every row shows its ratio to its own composite ("vs composite").
 *   jose      ceilings: jose RS256 sign and verify rates on one core, no HTTP (bench/ceiling-jose.ts)
 *   oidc-provider  panva's oidc-provider serving client_credentials with RS256 JWT access tokens
 *             (bench/oidc-provider.ts): the reference for the OAuth rows
 *   webhooks  delivery by one `npm run worker` to a local receiver: events/s draining a backlog,
 *             and latency p50/p99 from the change to the receiver (bench/webhooks.ts)
 *   limiter   rate-limit decisions/s on Redis (REDIS_URL) vs PING and a trivial script (bench/limiter.ts)
 *   scim      SCIM directory sync: BENCH_SCIM_USERS users provisioned into an empty organization
 *             (time, users/s) and `userName eq` look-ups/s, vs one prepared query (bench/scim.ts)
 *   sdk-verify  @latchkey/backend verifyToken/s vs raw node:crypto RS256 verify with a cached
 *             KeyObject, one process pinned to CPU 0 (bench/sdk-verify.ts). Aim: ≥ 0.8
 *   protection  POST /v1/client/sign_ins with attack protection and risk-based MFA on vs off,
 *             as a ratio of requests/s (bench/protection.ts)
 *   passwords FAPI password sign-in and sign-up vs the argon2id hash rate at the configured cost
 *             on the same core (bench/scale.ts, bench/ceiling-argon2.ts). Aim: ≥ 0.9
 *   cluster   GET /v1/users/:id on one process vs one HTTP worker per core (WEB_CONCURRENCY)
 *   growth    refresh and GET /v1/users?query= at 1k → 10k → 100k → 1M users (seeded by SQL)
 *   soak      BENCH_SOAK_SECONDS of mixed load on one process: RSS start, end and slope
 *   console   the console's users, organizations and audit calls on one instance of BENCH_CONSOLE_USERS users,
 *             BENCH_CONSOLE_ORGS organizations (the users their members) and BENCH_CONSOLE_AUDIT audit rows,
 *             seeded by SQL (bench/scale.ts). Aim: p99 ≤ 300 ms each
 *
 * Endpoints: GET /v1/users/:id and GET /v1/users?limit=20 (next, start, api; vs the bare and
 * db ceilings), and on start and api the session hot paths (vs the jose ceilings):
 *   refresh   POST /fapi/<instance>/v1/sessions/<sid>/refresh, each request a different
 *             session refreshed once (a pool minted through BAPI POST /v1/sessions outside the
 *             measured time; see bench/load.ts): one indexed read, one write, one RS256 signature
 *   verify    POST /v1/sessions/verify with a jwt minted just before each hit: one RS256
 *             verification and one indexed read
 *   cc        POST /fapi/<instance>/oauth2/token, client_credentials (Basic): one RS256 signature
 *   exchange  POST /fapi/<instance>/oauth2/token, authorization_code: each request a different
 *             code (scope openid) minted by a signed-in browser on the minter outside the measured
 *             time; two RS256 signatures (access and ID token), a user read and three writes
 *
 * And POST /v1/api_keys/verify (start, api; vs the bare and db ceilings, the db ceiling looking
 * the key up by digest with one prepared query): one end-user ak_ key verified again and again,
 * served from the per-node key cache.
 *
 * Every server runs at once, pinned to CPU 0; one load generator (bench/load.ts) pinned
 * to CPU 1 with taskset warms each target/endpoint up, then measures them round-robin so
 * background load hits all of them alike. PostgreSQL itself is not pinned.
 *
 * Environment (all optional):
 *   BENCH_ADMIN_URL    postgres:// URL of an existing database used to (re)create the bench one
 *                      (default postgres://postgres@127.0.0.1:5432/test)
 *   BENCH_DB           database name, dropped and recreated at start (default latchkey_bench)
 *   BENCH_CONNECTIONS  autocannon connections (default 10)
 *   BENCH_WARMUP       warm-up seconds per target and endpoint, discarded (default 2)
 *   BENCH_DURATION     measured seconds per target and endpoint (default 8)
 *   BENCH_ROUNDS       the measured seconds are split into this many round-robin rounds (default 4)
 *   BENCH_USERS        users seeded through the API (default 200)
 *   BENCH_TARGETS      comma-separated subset of next,start,api,bare,db,composite,jose,oidc-provider,webhooks,limiter,scim,protection,sdk-verify,
 *                      passwords,cluster,growth,soak,faults (default all; faults: bench/faults.ts, its own PostgreSQL and Redis;
 *                      naming next, start or api brings composite along: the aims are ratios to it)
 *   BENCH_SCIM_USERS   users provisioned through SCIM from an empty organization (default 10000)
 *   BENCH_PROTECTION_USERS  users seeded on each protection instance (default 20)
 *   BENCH_WEBHOOK_EVENTS  backlog drained by one worker (default 2000)
 *   BENCH_WEBHOOK_RATE    events/s for the latency run (default 100), for BENCH_WEBHOOK_SECONDS (default 5)
 *   BENCH_WEBHOOK_BIG_BACKLOG  messages written into the outbox and drained, with the worker's RSS (default 0: skipped)
 *   BENCH_ENDPOINTS    comma-separated subset of user,list,refresh,verify,cc,exchange,apikey (default all; the bare
 *                      ceiling always runs, the jose sign/verify ceiling with refresh/verify)
 *   BENCH_REFRESH_GUESS refreshes/s assumed when sizing the first refresh pool (default 1000)
 *   BENCH_PORT_BASE    first TCP port used (default 4710; the servers take the next ones, the minter +20)
 *   BENCH_CPU_PROF     a directory: run the api/start servers with --cpu-prof writing there
 *   BENCH_GROWTH_MAX   the largest user count of the growth table (default 1000000)
 *   BENCH_GROWTH_SESSIONS  fresh sessions seeded per growth step for the refresh column (default 20000)
 *   BENCH_GROWTH_MEMBERS   members of the organization of the member rows, after the last growth step (default 100000; 0: none)
 *   BENCH_SOAK_SECONDS mixed-load seconds of the RSS check (default 600)
 *   BENCH_CONSOLE_USERS, BENCH_CONSOLE_ORGS, BENCH_CONSOLE_AUDIT  the console row's instance (default 1000000, 100000, 10000000)
 */
import { buildIsCurrent } from '../server/main/build-stamp';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import postgres from 'postgres';
import type { Row as PlanRow } from './load';
import { measureWebhooks, type BenchServer as Server, type WebhookBenchResult } from './webhooks';
import { limiterTable, measureLimiter, type LimiterBenchRow } from './limiter';
import { measureScim, type ScimBenchResult } from './scim';
import type { SdkVerifyResult } from './sdk-verify';
import { measureProtection, type ProtectionBenchResult } from './protection';
import {
  measureCluster,
  measureConsole,
  measureGrowth,
  measurePasswords,
  measureSoak,
  type ClusterBenchResult,
  type ConsoleResult,
  type GrowthResult,
  type PasswordBenchResult,
  type SoakResult,
} from './scale';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RESULTS_DIR = path.join(ROOT, 'bench', 'results');

type Env = Record<string, string | undefined>;
const env: Env = process.env;
const ADMIN_URL = env.BENCH_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DB_NAME = env.BENCH_DB ?? 'latchkey_bench';
if (!/^[a-z_][a-z0-9_]*$/.test(DB_NAME)) throw new Error('BENCH_DB must be a plain lower-case identifier');
const DATABASE_URL = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
})();
/** Servers on PostgreSQL need one; a fixed throw-away key for the throw-away bench database. */
const ENCRYPTION_KEY = env.ENCRYPTION_KEY || 'b'.repeat(64);
const CONNECTIONS = Number(env.BENCH_CONNECTIONS ?? 10);
const WARMUP = Number(env.BENCH_WARMUP ?? 2);
const DURATION = Number(env.BENCH_DURATION ?? 8);
const USERS = Number(env.BENCH_USERS ?? 200);
const ROUNDS = Math.max(1, Number(env.BENCH_ROUNDS ?? 4));
const PORT_BASE = Number(env.BENCH_PORT_BASE ?? 4710);
const ENDPOINTS = env.BENCH_ENDPOINTS ? new Set(env.BENCH_ENDPOINTS.split(',').map((s) => s.trim())) : null;
const ONLY = env.BENCH_TARGETS ? new Set(env.BENCH_TARGETS.split(',').map((s) => s.trim())) : null;
// The composite ceilings come with any server row: the aims are stated against them (a row without its ceiling has no ratio).
if (ONLY && ['next', 'start', 'api'].some((t) => ONLY.has(t))) ONLY.add('composite');
const CPU_PROF = env.BENCH_CPU_PROF ? path.resolve(env.BENCH_CPU_PROF) : null;
const REFRESH_GUESS = Number(env.BENCH_REFRESH_GUESS ?? 1000);
const WEBHOOK_EVENTS = Number(env.BENCH_WEBHOOK_EVENTS ?? 2000);
const WEBHOOK_RATE = Number(env.BENCH_WEBHOOK_RATE ?? 100);
const WEBHOOK_SECONDS = Number(env.BENCH_WEBHOOK_SECONDS ?? 5);
const WEBHOOK_BIG_BACKLOG = Number(env.BENCH_WEBHOOK_BIG_BACKLOG ?? 0);
const SCIM_USERS = Number(env.BENCH_SCIM_USERS ?? 10_000);
const GROWTH_MAX = Number(env.BENCH_GROWTH_MAX ?? 1_000_000);
const GROWTH_SESSIONS = Number(env.BENCH_GROWTH_SESSIONS ?? 20_000);
const GROWTH_MEMBERS = Number(env.BENCH_GROWTH_MEMBERS ?? 100_000);
const SOAK_SECONDS = Number(env.BENCH_SOAK_SECONDS ?? 600);
const CONSOLE_USERS = Number(env.BENCH_CONSOLE_USERS ?? 1_000_000);
const CONSOLE_ORGS = Number(env.BENCH_CONSOLE_ORGS ?? 100_000);
const CONSOLE_AUDIT = Number(env.BENCH_CONSOLE_AUDIT ?? 10_000_000);
/** Issue #50 item 4: each console call answers within this. */
const CONSOLE_P99_AIM_MS = 300;
/** Keycloak's sizing guide: 120 refreshes/s per vCPU; Latchkey aims at 5× that on one core. */
const KEYCLOAK_PER_VCPU = 120;
const REFRESH_TARGET = 5 * KEYCLOAK_PER_VCPU;
/** Session jwts live 60 s (instance setting, not exposed by the API): every verify hit mints a fresh one. */
const JWT_LIFETIME_SECONDS = 60;
/** The whole run, build included, never outlives this. */
const WATCHDOG_MS = 30 * 60_000 + SOAK_SECONDS * 1000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (msg: string) => process.stderr.write(`[bench] ${msg}\n`);

// ---------------------------------------------------------------- CPU pinning

const cpus = os.cpus().length;
const hasTaskset = spawnSync('taskset', ['--version'], { stdio: 'ignore' }).status === 0;
const PIN = hasTaskset && cpus >= 2;
if (!PIN) log(`not pinning CPUs (taskset ${hasTaskset ? 'found' : 'missing'}, ${cpus} CPU(s)): numbers will be noisier`);
const pinned = (cpu: number, cmd: string, args: string[]): [string, string[]] =>
  PIN ? ['taskset', ['-c', String(cpu), cmd, ...args]] : [cmd, args];

// ---------------------------------------------------------------- processes

const live = new Set<ChildProcess>();

function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal); // detached: the child leads its own process group
  } catch {
    /* already gone */
  }
}

async function stop(child: ChildProcess) {
  killGroup(child, 'SIGTERM');
  for (let i = 0; i < 50 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
  killGroup(child, 'SIGKILL');
  for (let i = 0; i < 20 && child.exitCode === null && child.signalCode === null; i++) await sleep(100);
  live.delete(child);
}

function cleanupAndExit(code: number): never {
  for (const child of live) killGroup(child, 'SIGKILL');
  process.exit(code);
}
process.on('SIGINT', () => cleanupAndExit(130));
process.on('SIGTERM', () => cleanupAndExit(143));
setTimeout(() => {
  log(`watchdog: still running after ${WATCHDOG_MS / 60_000} minutes, giving up`);
  cleanupAndExit(1);
}, WATCHDOG_MS).unref();

/** Runs a command to completion (bounded), returning its output. */
function run(cmd: string, args: string[], opts: { env?: Env; timeoutMs: number; inherit?: boolean }) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(cmd, args, {
      cwd: ROOT,
      env: (opts.env ?? env) as NodeJS.ProcessEnv,
      detached: true,
      stdio: ['ignore', opts.inherit ? 'inherit' : 'pipe', opts.inherit ? 'inherit' : 'pipe'],
    });
    live.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      stderr += `\n[bench] timed out after ${opts.timeoutMs} ms\n`;
      killGroup(child, 'SIGKILL');
    }, opts.timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, stdout, stderr });
    });
  });
}

const lastJsonLine = (out: string): unknown => {
  const line = out
    .trim()
    .split('\n')
    .reverse()
    .find((l) => /^[[{]/.test(l.trim()));
  if (!line) throw new Error(`no JSON in output:\n${out}`);
  return JSON.parse(line);
};

// ---------------------------------------------------------------- servers

function startServer(name: string, cmd: string, args: string[], port: number, extraEnv: Env, cpu: number | null): Server {
  const [c, a] = cpu === null ? [cmd, args] : pinned(cpu, cmd, args);
  const child = spawn(c, a, {
    cwd: ROOT,
    env: {
      ...env,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      DATABASE_URL,
      ENCRYPTION_KEY,
      BAPI_RATE_LIMIT: '100000000',
      OAUTH_TOKEN_RATE_LIMIT: '100000000',
      LOG_LEVEL: 'warn',
      // One process per server unless a row says otherwise (the cluster row): every server
      // is pinned to one core, and the ratios compare one process with its ceilings there.
      WEB_CONCURRENCY: '1',
      ...extraEnv,
    } as NodeJS.ProcessEnv,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let output = '';
  const keep = (d: Buffer) => {
    output = (output + d.toString()).slice(-20_000);
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return { name, child, port, output: () => output };
}

async function waitFor(server: Server, pathname: string, timeoutMs: number, accept: (s: number) => boolean = (s) => s === 200) {
  const deadline = Date.now() + timeoutMs;
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (server.child.exitCode !== null || server.child.signalCode !== null) {
      throw new Error(`${server.name} exited (${server.child.exitCode ?? server.child.signalCode}):\n${server.output()}`);
    }
    try {
      const res = await fetch(`http://127.0.0.1:${server.port}${pathname}`, { signal: AbortSignal.timeout(5000) });
      await res.arrayBuffer();
      if (accept(res.status)) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = String(err);
    }
    await sleep(200);
  }
  throw new Error(`${server.name}: ${pathname} did not answer within ${timeoutMs} ms (${last}):\n${server.output()}`);
}

// ---------------------------------------------------------------- setup

async function recreateDatabase() {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`drop database if exists ${DB_NAME} with (force)`);
    await admin.unsafe(`create database ${DB_NAME}`);
  } finally {
    await admin.end({ timeout: 5 });
  }
}

async function cli(args: string[]): Promise<unknown> {
  const out = await run('npm', ['run', '--silent', 'cli', '--', ...args], {
    env: { ...env, DATABASE_URL, ENCRYPTION_KEY, LOG_LEVEL: 'warn' },
    timeoutMs: 120_000,
  });
  if (out.code !== 0) throw new Error(`npm run cli -- ${args.join(' ')} failed (${out.code}):\n${out.stdout}${out.stderr}`);
  return lastJsonLine(out.stdout);
}

async function ensureNextBuild(): Promise<boolean> {
  if (buildIsCurrent(ROOT)) return true;
  log('the console build is missing or stale: running npm run build (once)');
  const out = await run('npm', ['run', 'build'], {
    env: { ...env, NODE_ENV: 'production' },
    timeoutMs: 8 * 60_000,
    inherit: true,
  });
  if (buildIsCurrent(ROOT)) return true;
  // Another `next build` may hold the build lock in this tree: give it a bounded wait.
  log(`npm run build exited with ${out.code}; waiting up to 3 minutes for a current build`);
  for (let i = 0; i < 180 && !buildIsCurrent(ROOT); i++) await sleep(1000);
  return buildIsCurrent(ROOT);
}

async function seed(port: number, secret: string): Promise<{ userId: string; userIds: string[]; apiKeySecret: string }> {
  const server = startServer('seed (npm run api)', 'npm', ['run', 'api'], port, {}, null);
  try {
    await waitFor(server, '/healthz', 60_000);
    let next = 1;
    const ids: string[] = [];
    const worker = async () => {
      while (next <= USERS) {
        const n = next++;
        const res = await post(
          `http://127.0.0.1:${port}/v1/users`,
          { authorization: `Bearer ${secret}` },
          { email_address: [`u${n}@example.com`], first_name: `U${n}` },
        );
        if (res.status !== 200 || typeof res.body?.id !== 'string')
          throw new Error(`POST /v1/users → ${res.status} ${JSON.stringify(res.body)}`);
        ids.push(res.body.id);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    ids.sort();
    const userId = ids[Math.floor(ids.length / 2)]!;
    const res = await post(
      `http://127.0.0.1:${port}/v1/api_keys`,
      { authorization: `Bearer ${secret}` },
      { subject: userId, name: 'Bench', scopes: ['read:bench'], claims: { plan: 'bench' } },
    );
    const key = res.body as { secret?: string } | null;
    if (res.status !== 200 || !key?.secret) throw new Error(`POST /v1/api_keys → ${res.status} ${JSON.stringify(key)}`);
    return { userId, userIds: ids, apiKeySecret: key.secret };
  } finally {
    await stop(server.child);
  }
}

// ---------------------------------------------------------------- measuring

type EndpointKey = 'user' | 'list' | 'refresh' | 'verify' | 'cc' | 'exchange' | 'apikey';
type Group = 'users' | 'sessions' | 'oauth';

interface Endpoint {
  /** For BENCH_ENDPOINTS; the bare ceiling has none and always runs. */
  key?: EndpointKey;
  /** Other BENCH_ENDPOINTS keys this row also runs for (a ceiling shared by several rows). */
  alsoFor?: EndpointKey[];
  group: Group;
  label: string;
  /** The load generator's row for this endpoint on a server at `base` (http://127.0.0.1:port). */
  row(id: string, base: string): PlanRow;
  /** One request before the load starts, so a broken target is not "fast": a problem or null. */
  check(base: string): Promise<string | null>;
}

interface LoadResult {
  id: string;
  requestsPerSecond: number;
  /** req/s of each measured round, to show the spread. */
  roundsRps: number[];
  p50: number;
  p99: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** refresh rows: requests sent after the pool of fresh sessions ran dry (not successes) */
  exhausted: number;
  seconds: number;
  /** CPU time of the server's processes (all threads, from /proc) per successful request over the measured rounds, µs */
  cpuMicrosPerRequest: number | null;
  /** refresh and verify rows: a second, open-loop pass at half the measured rate (bench/load.ts paced) */
  halfRate: { rate: number; p50: number; p99: number; ok: number; non2xx: number } | null;
}

interface Row extends Omit<LoadResult, 'id'> {
  target: string;
  key: string;
  group: Group;
  endpoint: string;
  vsBare: number | null;
  vsDb: number | null;
  /** sessions and oauth rows: req/s ÷ the jose ceiling of the same operation (sign for refresh and OAuth, verify for verify) */
  vsCeiling: number | null;
  /** oauth rows: req/s ÷ oidc-provider's client_credentials rate */
  vsProvider: number | null;
  /** req/s ÷ the composite ceiling of the same endpoint (the unavoidable work of the request on one core) */
  vsComposite: number | null;
}

const wanted = (e: Endpoint) => !ENDPOINTS || !e.key || ENDPOINTS.has(e.key) || (e.alsoFor ?? []).some((k) => ENDPOINTS.has(k));

/** One pinned load-generator process for the whole schedule (see bench/load.ts). */
async function load(rows: PlanRow[]): Promise<LoadResult[]> {
  const plan = {
    rows,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP,
    rounds: ROUNDS,
    secondsPerRound: DURATION / ROUNDS,
    refreshGuess: REFRESH_GUESS,
  };
  const [cmd, args] = pinned(1, process.execPath, ['--import', 'tsx', 'bench/load.ts', JSON.stringify(plan)]);
  // Refresh rows mint their sessions between hits: allow for it.
  const minting = rows.some((r) => r.kind === 'refresh') ? 600 : 0;
  const out = await run(cmd, args, { timeoutMs: (rows.length * (WARMUP + DURATION + 2) + 60 + minting) * 1000 });
  process.stderr.write(out.stderr);
  if (out.code !== 0) throw new Error(`load generator failed (${out.code}):\n${out.stdout}`);
  return lastJsonLine(out.stdout) as LoadResult[];
}

interface Target {
  key: string;
  name: string;
  cmd: string;
  args: (port: number) => string[];
  ready: string[];
  /** npm start: let the console finish booting so it does not steal CPU 0 mid-measurement. */
  waitConsole?: boolean;
  endpoints: Endpoint[];
  env?: Env;
}

function fmt(n: number | null, digits: number) {
  return n === null || !Number.isFinite(n) ? '-' : n.toFixed(digits);
}

function table(head: string[], body: string[][], leftColumns = 2): string {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i < leftColumns ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

/** The columns both tables start with, and their cells for a row. */
const MEASURED = ['target', 'endpoint', 'req/s', 'rounds min-max', 'p50 ms', 'p99 ms', 'CPU µs/req'];
const measured = (r: Row) => [
  r.target,
  r.endpoint,
  r.requestsPerSecond.toFixed(0),
  `${Math.min(...r.roundsRps).toFixed(0)}-${Math.max(...r.roundsRps).toFixed(0)}`,
  fmt(r.p50, 2),
  fmt(r.p99, 2),
  fmt(r.cpuMicrosPerRequest, 0),
];

const usersTable = (rows: Row[]) =>
  table(
    [...MEASURED, 'vs bare', 'vs db', 'vs composite'],
    rows.map((r) => [...measured(r), fmt(r.vsBare, 2), fmt(r.vsDb, 2), fmt(r.vsComposite, 2)]),
  );

const sessionsTable = (rows: Row[]) =>
  table(
    [...MEASURED, 'vs jose', 'vs db', 'vs composite', `vs ${REFRESH_TARGET}/s`],
    rows.map((r) => [
      ...measured(r),
      fmt(r.vsCeiling, 2),
      fmt(r.vsDb, 2),
      fmt(r.vsComposite, 2),
      r.key !== 'jose' && r.endpoint.endsWith('/refresh') ? fmt(r.requestsPerSecond / REFRESH_TARGET, 2) : '-',
    ]),
  );

const oauthTable = (rows: Row[]) =>
  table(
    [...MEASURED, 'vs jose sign', 'vs oidc-provider', 'vs composite'],
    rows.map((r) => [...measured(r), fmt(r.vsCeiling, 2), fmt(r.vsProvider, 2), fmt(r.vsComposite, 2)]),
  );

async function post(url: string, headers: Record<string, string>, body: unknown) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, unknown> | null };
}

// ---------------------------------------------------------------- main

async function main() {
  const started = Date.now();
  mkdirSync(RESULTS_DIR, { recursive: true });
  if (CPU_PROF) mkdirSync(CPU_PROF, { recursive: true });
  const hitSeconds = Math.max(WARMUP, DURATION / ROUNDS);
  if (hitSeconds > JWT_LIFETIME_SECONDS - 10) {
    throw new Error(
      `verify mints one jwt per hit and jwts live ${JWT_LIFETIME_SECONDS}s: keep BENCH_WARMUP and BENCH_DURATION/BENCH_ROUNDS under ${JWT_LIFETIME_SECONDS - 10}s`,
    );
  }

  log(`recreating database ${DB_NAME}`);
  await recreateDatabase();

  log('creating the instance and a secret key with the CLI');
  const instance = (await cli(['instance', 'create', '--name', 'Bench', '--env', 'live', '--json'])) as { instance_id: string };
  const key = (await cli(['keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--json'])) as { secret: string };
  const auth = { authorization: `Bearer ${key.secret}` };

  const wantNext = !ONLY || ONLY.has('next');
  const haveBuild = wantNext ? await ensureNextBuild() : false;
  if (wantNext && !haveBuild) log('no Next.js build: skipping the next target');

  log(`seeding ${USERS} users through POST /v1/users`);
  const { userId, userIds, apiKeySecret } = await seed(PORT_BASE, key.secret);
  // Sessions are minted round-robin over (up to) 100 of the seeded users, through a separate
  // `npm run api` on CPU 1 (the minter), so minting never runs in, or shows in the profile of,
  // a server under test. Every server shares the database and the instance (its fapi_url and
  // keys), so any of them refreshes or verifies what the minter issued.
  const minterPort = PORT_BASE + 20;
  const minterBase = `http://127.0.0.1:${minterPort}`;
  const mintFor = () => ({ url: `${minterBase}/v1/sessions`, headers: auth, userIds: userIds.slice(0, 100) });

  const getEndpoint = (k: 'user' | 'list', label: string, pathname: string, ok: (s: number, b: string) => string | null): Endpoint => ({
    key: k,
    group: 'users',
    label,
    row: (id, base) => ({ id, kind: 'get', url: `${base}${pathname}`, headers: auth }),
    check: async (base) => {
      const res = await fetch(`${base}${pathname}`, { headers: auth, signal: AbortSignal.timeout(10_000) });
      return ok(res.status, await res.text());
    },
  });
  const userEndpoint = getEndpoint('user', 'GET /v1/users/:id', `/v1/users/${userId}`, (s, b) =>
    s === 200 && b.includes(userId) ? null : `HTTP ${s} ${b.slice(0, 200)}`,
  );
  const listEndpoint = getEndpoint('list', 'GET /v1/users?limit=20', '/v1/users?limit=20', (s, b) => {
    if (s !== 200) return `HTTP ${s} ${b.slice(0, 200)}`;
    const n = (JSON.parse(b) as { data?: unknown[] }).data?.length;
    return n === 20 ? null : `expected 20 users, got ${n}`;
  });
  const apiKeyBody = JSON.stringify({ secret: apiKeySecret });
  const apiKeyEndpoint: Endpoint = {
    key: 'apikey',
    group: 'users',
    label: 'POST /v1/api_keys/verify',
    row: (id, base) => ({
      id,
      kind: 'post',
      url: `${base}/v1/api_keys/verify`,
      headers: { ...auth, 'content-type': 'application/json' },
      body: apiKeyBody,
    }),
    check: async (base) => {
      const r = await post(`${base}/v1/api_keys/verify`, auth, { secret: apiKeySecret });
      return r.status === 200 && r.body?.subject === userId ? null : `HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
    },
  };
  const bareEndpoint: Endpoint = {
    group: 'users',
    label: 'fixed JSON body',
    row: (id, base) => ({ id, kind: 'get', url: `${base}/v1/users/fixed`, headers: auth }),
    check: async (base) => {
      const res = await fetch(`${base}/v1/users/fixed`, { signal: AbortSignal.timeout(10_000) });
      await res.arrayBuffer();
      return res.status === 200 ? null : `HTTP ${res.status}`;
    },
  };
  const fapiOf = (base: string) => `${base}/fapi/${instance.instance_id}`;
  const mintOnce = async () => {
    const r = await post(`${minterBase}/v1/sessions`, auth, { user_id: userId });
    if (r.status !== 200 || typeof r.body?.refresh_token !== 'string')
      throw new Error(`POST /v1/sessions → ${r.status} ${JSON.stringify(r.body)}`);
    return r.body as { id: string; jwt: string; refresh_token: string };
  };
  const refreshEndpoint: Endpoint = {
    key: 'refresh',
    group: 'sessions',
    label: 'POST /fapi/:ins/v1/sessions/:id/refresh',
    row: (id, base) => ({ id, kind: 'refresh', fapiUrl: fapiOf(base), mint: mintFor() }),
    check: async (base) => {
      const s = await mintOnce();
      const r = await post(`${fapiOf(base)}/v1/sessions/${s.id}/refresh`, {}, { refresh_token: s.refresh_token });
      const ok = r.status === 200 && typeof r.body?.jwt === 'string' && r.body.refresh_token !== s.refresh_token;
      return ok ? null : `HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
    },
  };
  const verifyEndpoint: Endpoint = {
    key: 'verify',
    group: 'sessions',
    label: 'POST /v1/sessions/verify',
    row: (id, base) => ({ id, kind: 'verify', url: `${base}/v1/sessions/verify`, headers: auth, mint: mintFor() }),
    check: async (base) => {
      const s = await mintOnce();
      const r = await post(`${base}/v1/sessions/verify`, auth, { token: s.jwt });
      return r.status === 200 && r.body?.id === s.id ? null : `HTTP ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`;
    },
  };
  const joseEndpoint = (k: 'refresh' | 'verify', op: 'sign' | 'verify', label: string): Endpoint => ({
    key: k,
    group: 'sessions',
    label,
    row: (id, base) => ({ id, kind: 'ceiling', url: `${base}/run?op=${op}` }),
    check: async () => null,
  });

  // OAuth: one confidential app (no consent screen) and one signed-in browser on the minter,
  // set up once on first use; codes are minted by that browser's GET /oauth2/authorize.
  const REDIRECT_URI = 'https://rp.example.com/callback';
  let oauthSetup: Promise<{ basic: string; mintCode: { authorizeUrl: string; cookie: string } }> | null = null;
  const oauth = () =>
    (oauthSetup ??= (async () => {
      const app = await post(`${minterBase}/v1/oauth_applications`, auth, {
        name: 'Bench RP',
        redirect_uris: [REDIRECT_URI],
        scopes: ['openid', 'api'],
        consent_screen_enabled: false,
      });
      if (app.status !== 201) throw new Error(`POST /v1/oauth_applications → ${app.status} ${JSON.stringify(app.body)}`);
      const password = 'bench oauth passphrase';
      const user = await post(`${minterBase}/v1/users`, auth, { email_address: ['oauth-bench@example.com'], password });
      if (user.status !== 200) throw new Error(`POST /v1/users → ${user.status} ${JSON.stringify(user.body)}`);
      const signIn = await fetch(`${fapiOf(minterBase)}/v1/client/sign_ins`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identifier: 'oauth-bench@example.com', strategy: 'password', password }),
        signal: AbortSignal.timeout(30_000),
      });
      const cookie = /^(__client=[^;]+);/.exec(signIn.headers.get('set-cookie') ?? '')?.[1];
      if (signIn.status !== 200 || !cookie) throw new Error(`FAPI sign-in → ${signIn.status} ${(await signIn.text()).slice(0, 200)}`);
      const q = new URLSearchParams({
        response_type: 'code',
        client_id: String(app.body!.client_id),
        redirect_uri: REDIRECT_URI,
        scope: 'openid',
      });
      return {
        basic: `Basic ${Buffer.from(`${String(app.body!.client_id)}:${String(app.body!.client_secret)}`).toString('base64')}`,
        mintCode: { authorizeUrl: `${fapiOf(minterBase)}/oauth2/authorize?${q}`, cookie },
      };
    })());
  let oauthReady: Awaited<ReturnType<typeof oauth>> | null = null;
  const FORM = 'application/x-www-form-urlencoded';
  const tokenPost = async (url: string, authorization: string, body: string) => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization, 'content-type': FORM },
      body,
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return res.status === 200 && text.includes('"access_token"') ? null : `HTTP ${res.status} ${text.slice(0, 200)}`;
  };
  const ccEndpoint: Endpoint = {
    key: 'cc',
    group: 'oauth',
    label: 'client_credentials',
    row: (id, base) => ({
      id,
      kind: 'post',
      url: `${fapiOf(base)}/oauth2/token`,
      headers: { authorization: oauthReady!.basic, 'content-type': FORM },
      body: 'grant_type=client_credentials&scope=api',
    }),
    check: async (base) => {
      oauthReady = await oauth();
      return tokenPost(`${fapiOf(base)}/oauth2/token`, oauthReady.basic, 'grant_type=client_credentials&scope=api');
    },
  };
  const exchangeEndpoint: Endpoint = {
    key: 'exchange',
    group: 'oauth',
    label: 'authorization_code exchange',
    row: (id, base) => ({
      id,
      kind: 'exchange',
      tokenUrl: `${fapiOf(base)}/oauth2/token`,
      headers: { authorization: oauthReady!.basic, 'content-type': FORM },
      redirectUri: REDIRECT_URI,
      mintCode: oauthReady!.mintCode,
    }),
    check: async (base) => {
      oauthReady = await oauth();
      const res = await fetch(oauthReady.mintCode.authorizeUrl, {
        headers: { cookie: oauthReady.mintCode.cookie },
        redirect: 'manual',
        signal: AbortSignal.timeout(10_000),
      });
      const code = new URL(res.headers.get('location') ?? 'x:/').searchParams.get('code');
      if (!code) return `authorize → ${res.status} ${res.headers.get('location')}`;
      return tokenPost(
        `${fapiOf(base)}/oauth2/token`,
        oauthReady.basic,
        `grant_type=authorization_code&code=${code}&redirect_uri=${encodeURIComponent(REDIRECT_URI)}`,
      );
    },
  };
  const PROVIDER_BASIC = `Basic ${Buffer.from('bench:bench-secret-bench-secret-bench-secret').toString('base64')}`;
  const providerCcEndpoint: Endpoint = {
    key: 'cc',
    alsoFor: ['exchange'],
    group: 'oauth',
    label: 'client_credentials',
    row: (id, base) => ({
      id,
      kind: 'post',
      url: `${base}/token`,
      headers: { authorization: PROVIDER_BASIC, 'content-type': FORM },
      body: 'grant_type=client_credentials&scope=api',
    }),
    check: (base) => tokenPost(`${base}/token`, PROVIDER_BASIC, 'grant_type=client_credentials&scope=api'),
  };

  const tsx = ['--import', 'tsx'];
  // --cpu-prof is not allowed in NODE_OPTIONS: when profiling, run the entry point with node directly.
  const npmOrProfiled = (script: string, npmArgs: string[]) =>
    CPU_PROF
      ? { cmd: process.execPath, args: () => ['--cpu-prof', `--cpu-prof-dir=${CPU_PROF}`, ...tsx, script] }
      : { cmd: 'npm', args: () => npmArgs };

  const allTargets: Target[] = [
    {
      key: 'next',
      name: 'next start (route handler)',
      cmd: process.execPath,
      args: (p) => ['node_modules/next/dist/bin/next', 'start', '-p', String(p), '-H', '127.0.0.1'],
      ready: ['/healthz'],
      endpoints: [userEndpoint, listEndpoint],
    },
    {
      key: 'start',
      name: 'npm start (fast path)',
      ...npmOrProfiled('server/main/start.ts', ['start']),
      ready: ['/healthz', '/readyz'],
      waitConsole: true,
      endpoints: [userEndpoint, listEndpoint, refreshEndpoint, verifyEndpoint, ccEndpoint, exchangeEndpoint, apiKeyEndpoint],
    },
    {
      key: 'api',
      name: 'npm run api',
      ...npmOrProfiled('server/main/api.ts', ['run', 'api']),
      ready: ['/healthz', '/readyz'],
      endpoints: [userEndpoint, listEndpoint, refreshEndpoint, verifyEndpoint, ccEndpoint, exchangeEndpoint, apiKeyEndpoint],
    },
    {
      key: 'bare',
      name: 'ceiling: bare node:http',
      cmd: process.execPath,
      args: () => [...tsx, 'bench/ceiling-bare.ts'],
      ready: ['/'],
      endpoints: [bareEndpoint],
    },
    {
      key: 'db',
      name: 'ceiling: node:http + 1 query',
      cmd: process.execPath,
      args: () => [...tsx, 'bench/ceiling-db.ts'],
      ready: ['/healthz'],
      endpoints: [userEndpoint, listEndpoint, apiKeyEndpoint, verifyEndpoint],
      env: { BENCH_INSTANCE_ID: instance.instance_id },
    },
    {
      key: 'composite',
      name: 'ceiling: composite (node:http + queries + RS256)',
      cmd: process.execPath,
      args: () => [...tsx, 'bench/ceiling-db.ts'],
      ready: ['/healthz'],
      endpoints: [userEndpoint, listEndpoint, apiKeyEndpoint, verifyEndpoint, refreshEndpoint, ccEndpoint],
      env: { BENCH_INSTANCE_ID: instance.instance_id, CEILING_CRYPTO: '1' },
    },
    {
      key: 'jose',
      name: 'ceiling: jose, 1 core, no HTTP',
      cmd: process.execPath,
      args: () => [...tsx, 'bench/ceiling-jose.ts'],
      ready: ['/healthz'],
      endpoints: [
        { ...joseEndpoint('refresh', 'sign', 'RS256 sign (2048-bit), ops/s'), alsoFor: ['cc', 'exchange'] },
        joseEndpoint('verify', 'verify', 'RS256 verify, ops/s'),
      ],
    },
    {
      key: 'oidc-provider',
      name: 'oidc-provider (panva), client_credentials',
      cmd: process.execPath,
      args: () => [...tsx, 'bench/oidc-provider.ts'],
      ready: ['/.well-known/openid-configuration'],
      endpoints: [providerCcEndpoint],
    },
  ];
  const targets = allTargets.filter((t) => (!ONLY || ONLY.has(t.key)) && (t.key !== 'next' || haveBuild));

  const rows: Row[] = [];
  // Every server runs at once, pinned to CPU 0 (idle ones cost next to nothing), so the
  // load generator can interleave them round by round.
  const servers: Server[] = [];
  const plan: PlanRow[] = [];
  const meta = new Map<string, { target: string; key: string; group: Group; endpoint: string }>();
  try {
    const wantSessions = targets.some(
      (t) =>
        t.key !== 'jose' &&
        t.key !== 'oidc-provider' &&
        t.endpoints.some((e) => (e.group === 'sessions' || e.group === 'oauth') && wanted(e)),
    );
    if (wantSessions) {
      log(`minter (npm run api): starting on port ${minterPort} (CPU 1)`);
      const minter = startServer('minter (npm run api)', 'npm', ['run', 'api'], minterPort, {}, 1);
      servers.push(minter);
      await waitFor(minter, '/readyz', 120_000);
    }
    let port = PORT_BASE + 1;
    for (const t of targets) {
      const p = port++;
      log(`${t.name}: starting on port ${p} (CPU 0)`);
      const server = startServer(t.name, t.cmd, t.args(p), p, t.env ?? {}, 0);
      servers.push(server);
      for (const r of t.ready) await waitFor(server, r, 120_000);
      if (t.waitConsole) {
        try {
          await waitFor(server, '/', 120_000, (s) => s !== 503);
        } catch {
          log(`${t.name}: the console did not come up; measuring the API anyway`);
        }
      }
      const base = `http://127.0.0.1:${p}`;
      for (const e of t.endpoints) {
        if (!wanted(e)) continue;
        const problem = await e.check(base);
        if (problem) throw new Error(`${t.name} ${e.label}: ${problem}`);
        const id = `${t.key} ${e.label}`;
        plan.push({ ...e.row(id, base), pgid: server.child.pid });
        meta.set(id, { target: t.name, key: t.key, group: e.group, endpoint: e.label });
      }
    }
    const loadBefore = os.loadavg()[0]!;
    log(
      `measuring ${plan.length} rows: ${WARMUP}s warm-up each, then ${ROUNDS} round-robin rounds of ${(DURATION / ROUNDS).toFixed(1)}s ` +
        `(${DURATION}s per row, ${CONNECTIONS} connections, autocannon on CPU 1) ≈ ${plan.length * (WARMUP + DURATION)}s plus minting`,
    );
    if (loadBefore > 1)
      log(`note: 1-minute load average is ${loadBefore.toFixed(2)} before measuring; other work on this machine skews the numbers`);
    for (const r of plan.length ? await load(plan) : []) {
      const { id, ...rest } = r;
      if (r.non2xx || r.errors || r.timeouts) log(`  ! ${id}: ${r.non2xx} non-2xx, ${r.errors} errors, ${r.timeouts} timeouts`);
      if (r.exhausted) log(`  ! ${id}: the refresh pool ran dry for ${r.exhausted} requests (raise BENCH_REFRESH_GUESS)`);
      rows.push({ ...rest, ...meta.get(id)!, vsBare: null, vsDb: null, vsCeiling: null, vsProvider: null, vsComposite: null });
    }
  } finally {
    for (const server of servers) await stop(server.child);
  }

  let webhooks: WebhookBenchResult | null = null;
  if (!ONLY || ONLY.has('webhooks')) {
    webhooks = await measureWebhooks(
      { cli, startServer, waitFor, stop, log, post },
      {
        port: PORT_BASE + 30,
        backlog: WEBHOOK_EVENTS,
        rate: WEBHOOK_RATE,
        seconds: WEBHOOK_SECONDS,
        bigBacklog: WEBHOOK_BIG_BACKLOG,
        databaseUrl: DATABASE_URL,
      },
    );
  }

  let limiter: LimiterBenchRow[] | null = null;
  if (!ONLY || ONLY.has('limiter')) {
    const redisUrl = env.REDIS_URL ?? 'redis://127.0.0.1:6379';
    log(`measuring limiter decisions on ${redisUrl}`);
    limiter = await measureLimiter({ redisUrl, inFlight: CONNECTIONS, seconds: DURATION, rounds: ROUNDS, warmupSeconds: WARMUP }).catch(
      (err: unknown) => {
        log(`  ! limiter: ${String(err)}`);
        return null;
      },
    );
  }

  let sdkVerify: SdkVerifyResult | null = null;
  if (!ONLY || ONLY.has('sdk-verify')) {
    log('measuring @latchkey/backend verifyToken vs raw node:crypto (CPU 0)');
    const args = ['--import', 'tsx', 'bench/sdk-verify.ts'];
    const run = spawnSync(hasTaskset ? 'taskset' : process.execPath, hasTaskset ? ['-c', '0', process.execPath, ...args] : args, {
      cwd: ROOT,
      encoding: 'utf8',
      env: { ...process.env, BENCH_DURATION: String(DURATION), BENCH_ROUNDS: String(ROUNDS), BENCH_WARMUP: String(WARMUP) },
    });
    try {
      sdkVerify = JSON.parse(run.stdout.trim().split('\n').pop() ?? '') as SdkVerifyResult;
    } catch {
      log(`  ! sdk-verify: ${run.stderr.slice(0, 500)}`);
    }
  }

  let scim: ScimBenchResult | null = null;
  if (!ONLY || ONLY.has('scim')) {
    scim = await measureScim(
      { cli, startServer, waitFor, stop, log, post },
      { port: PORT_BASE + 40, users: SCIM_USERS, connections: CONNECTIONS, seconds: DURATION, databaseUrl: DATABASE_URL },
    );
  }

  let protection: ProtectionBenchResult | null = null;
  if (!ONLY || ONLY.has('protection')) {
    protection = await measureProtection(
      { cli, startServer, waitFor, stop, log, post },
      {
        port: PORT_BASE + 50,
        seconds: DURATION,
        rounds: ROUNDS,
        connections: CONNECTIONS,
        users: Number(env.BENCH_PROTECTION_USERS ?? 20),
      },
    );
  }

  const helpers = { cli, startServer, waitFor, stop, log, post };
  let passwords: PasswordBenchResult | null = null;
  if (!ONLY || ONLY.has('passwords')) {
    log('measuring password sign-in and sign-up vs the argon2id hash rate (CPU 0)');
    const runPinned = async (args: string[], extra: Env) => {
      const [c, a] = pinned(0, process.execPath, ['--import', 'tsx', ...args]);
      const out = await run(c, a, { env: { ...env, ...extra }, timeoutMs: 120_000 });
      if (out.code !== 0) throw new Error(`${args.join(' ')} failed: ${out.stderr}`);
      return out.stdout;
    };
    passwords = await measurePasswords(
      { ...helpers, runPinned },
      { port: PORT_BASE + 60, seconds: DURATION, connections: CONNECTIONS },
    ).catch((err: unknown) => {
      log(`  ! passwords: ${String(err)}`);
      return null;
    });
  }
  let cluster: ClusterBenchResult | null = null;
  if (!ONLY || ONLY.has('cluster')) {
    log(`measuring one process vs one per core (${cpus} cores), servers unpinned`);
    cluster = await measureCluster(helpers, {
      port: PORT_BASE + 61,
      seconds: DURATION,
      connections: CONNECTIONS,
      userPath: `/v1/users/${userId}`,
      auth,
    }).catch((err: unknown) => {
      log(`  ! cluster: ${String(err)}`);
      return null;
    });
  }
  let growth: GrowthResult | null = null;
  if (!ONLY || ONLY.has('growth')) {
    log(`measuring growth up to ${GROWTH_MAX} users`);
    growth = await measureGrowth(helpers, {
      port: PORT_BASE + 62,
      seconds: DURATION / 2,
      connections: CONNECTIONS,
      databaseUrl: DATABASE_URL,
      max: GROWTH_MAX,
      sessionsPerStep: GROWTH_SESSIONS,
      members: GROWTH_MEMBERS,
    }).catch((err: unknown) => {
      log(`  ! growth: ${String(err)}`);
      return null;
    });
  }
  let soak: SoakResult | null = null;
  if (!ONLY || ONLY.has('soak')) {
    log(`soak: ${SOAK_SECONDS}s of mixed load, RSS sampled every 5 s`);
    soak = await measureSoak(helpers, { port: PORT_BASE + 63, seconds: SOAK_SECONDS, inFlight: CONNECTIONS }).catch((err: unknown) => {
      log(`  ! soak: ${String(err)}`);
      return null;
    });
  }
  let consoleRow: ConsoleResult | null = null;
  if (!ONLY || ONLY.has('console')) {
    log(`console: ${CONSOLE_USERS} users, ${CONSOLE_ORGS} organizations, ${CONSOLE_AUDIT} audit rows`);
    consoleRow = await measureConsole(helpers, {
      port: PORT_BASE + 64,
      seconds: DURATION / 2,
      connections: CONNECTIONS,
      databaseUrl: DATABASE_URL,
      users: CONSOLE_USERS,
      organizations: CONSOLE_ORGS,
      auditRows: CONSOLE_AUDIT,
    }).catch((err: unknown) => {
      log(`  ! console: ${String(err)}`);
      return null;
    });
  }

  const bare = rows.find((r) => r.key === 'bare')?.requestsPerSecond ?? null;
  const dbFor = (endpoint: string) => rows.find((r) => r.key === 'db' && r.endpoint === endpoint)?.requestsPerSecond ?? null;
  const signRate = rows.find((r) => r.key === 'jose' && r.endpoint.includes('sign'))?.requestsPerSecond ?? null;
  const verifyRate = rows.find((r) => r.key === 'jose' && r.endpoint.includes('verify'))?.requestsPerSecond ?? null;
  const providerRate = rows.find((r) => r.key === 'oidc-provider')?.requestsPerSecond ?? null;
  const CEILINGS = new Set(['bare', 'db', 'composite', 'jose', 'oidc-provider']);
  for (const r of rows) {
    const composite = CEILINGS.has(r.key) ? null : rows.find((c) => c.key === 'composite' && c.endpoint === r.endpoint)?.requestsPerSecond;
    r.vsComposite = composite ? r.requestsPerSecond / composite : null;
    if (r.group === 'oauth') {
      r.vsCeiling = signRate ? r.requestsPerSecond / signRate : null;
      r.vsProvider = providerRate ? r.requestsPerSecond / providerRate : null;
    } else if (r.group === 'users') {
      r.vsBare = bare ? r.requestsPerSecond / bare : null;
      const db = dbFor(r.endpoint);
      r.vsDb = db ? r.requestsPerSecond / db : null;
    } else if (r.key !== 'jose') {
      const ceiling = r.endpoint === refreshEndpoint.label ? signRate : verifyRate;
      r.vsCeiling = ceiling ? r.requestsPerSecond / ceiling : null;
      const db = r.endpoint === verifyEndpoint.label ? dbFor(r.endpoint) : null;
      r.vsDb = db ? r.requestsPerSecond / db : null;
    }
  }

  const fast = rows.find((r) => r.key === 'start' && r.endpoint === userEndpoint.label);
  const aim = fast?.vsDb ?? null;
  const refreshRows = rows.filter((r) => r.endpoint === refreshEndpoint.label && r.key !== 'composite');
  const cpuModel = os.cpus()[0]?.model ?? 'unknown';
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim();
  const loadAfter = os.loadavg();
  const header =
    `Latchkey API benchmark — ${new Date().toISOString()} — ${cpuModel}, node ${process.version}, commit ${commit}\n` +
    `${CONNECTIONS} connections, ${WARMUP}s warm-up + ${DURATION}s per row in ${ROUNDS} interleaved rounds; servers on CPU 0, autocannon on CPU 1` +
    `${PIN ? '' : ' (NOT pinned)'}; PostgreSQL unpinned; load average ${loadAfter.map((l) => l.toFixed(2)).join(' / ')} (1/5/15 min) at the end.`;
  const out: string[] = [header];
  const usersRows = rows.filter((r) => r.group === 'users');
  if (usersRows.length) {
    out.push(
      `\nvs bare = req/s ÷ bare node:http; vs db = req/s ÷ node:http + 1 postgres.js query (same endpoint).\n\n${usersTable(usersRows)}`,
    );
    if (aim !== null)
      out.push(
        `\nFast path GET /v1/users/:id at ${aim.toFixed(2)} of the database ceiling (aim ≥ 0.60): ${aim >= 0.6 ? 'met' : 'NOT met'}.`,
      );
  }
  const sessionRows = rows.filter((r) => r.group === 'sessions');
  if (sessionRows.length) {
    out.push(
      `\nSessions. vs jose = req/s ÷ jose's rate for the same operation on the servers' core (refresh: RS256 sign; verify: RS256 verify),\n` +
        `${CONNECTIONS} operations in flight, no HTTP, no database. Every refresh rotates a different session's token once.\n\n${sessionsTable(sessionRows)}\n`,
    );
    for (const r of refreshRows) {
      const v = r.vsCeiling;
      out.push(`${r.target}: refresh at ${fmt(v, 2)} of the RS256 sign rate (aim ≥ 0.80): ${v !== null && v >= 0.8 ? 'met' : 'NOT met'}.`);
    }
    for (const r of sessionRows.filter((x) => x.key !== 'db' && x.key !== 'composite' && x.endpoint === verifyEndpoint.label)) {
      const v = r.vsDb;
      out.push(
        `${r.target}: authoritative verify at ${fmt(v, 2)} of the one-query database ceiling (aim ≥ 0.80): ${v !== null && v >= 0.8 ? 'met' : 'NOT met'}.`,
      );
    }
    for (const r of sessionRows.filter((x) => x.halfRate)) {
      const h = r.halfRate!;
      out.push(
        `${r.target} ${r.endpoint} at half its saturating rate (${h.rate} req/s offered): p50 ${fmt(h.p50, 2)} ms, p99 ${fmt(h.p99, 2)} ms ` +
          `${r.key === 'db' || r.key === 'composite' ? '(ceiling)' : `(aim < 10 ms): ${h.p99 < 10 ? 'met' : 'NOT met'}`}; ${h.non2xx} non-2xx.`,
      );
    }
    out.push(
      `Reference: Keycloak's sizing guide allows ${KEYCLOAK_PER_VCPU} refreshes/s per vCPU; the aim is 5× that per core = ${REFRESH_TARGET}/s` +
        (refreshRows.length ? ` (${refreshRows.map((r) => `${r.target} ${r.requestsPerSecond.toFixed(0)}/s`).join(', ')}).` : '.'),
    );
  }
  const compositeAims: [string, number][] = [
    [verifyEndpoint.label, 0.9],
    [refreshEndpoint.label, 0.8],
    [ccEndpoint.label, 0.8],
    [userEndpoint.label, 0.8],
  ];
  const aimRows = rows.filter((r) => r.vsComposite !== null && compositeAims.some(([e]) => e === r.endpoint));
  if (aimRows.length) {
    out.push("\nAgainst each row's composite ceiling (the same work it cannot avoid, on the same core, same run; issue 39):");
    for (const r of aimRows) {
      const aimFor = compositeAims.find(([e]) => e === r.endpoint)![1];
      out.push(
        `${r.target} ${r.endpoint}: ${fmt(r.vsComposite, 2)} of its composite (aim ≥ ${aimFor.toFixed(2)}): ${r.vsComposite! >= aimFor ? 'met' : 'NOT met'}.`,
      );
    }
  }
  const oauthRows = rows.filter((r) => r.group === 'oauth');
  if (oauthRows.length) {
    out.push(
      `\nOAuth token endpoint. vs jose sign = req/s ÷ jose's RS256 sign rate on the servers' core; vs oidc-provider = req/s ÷ panva's\n` +
        `oidc-provider serving client_credentials (RS256 JWT access tokens, in-memory store) on the same core.\n\n${oauthTable(oauthRows)}\n`,
    );
    for (const r of oauthRows.filter((x) => x.key !== 'oidc-provider' && x.key !== 'composite' && x.endpoint === ccEndpoint.label)) {
      const v = r.vsCeiling;
      const p = r.vsProvider;
      out.push(
        `${r.target}: client_credentials at ${fmt(v, 2)} of the RS256 sign rate (aim ≥ 0.80): ${v !== null && v >= 0.8 ? 'met' : 'NOT met'}; ` +
          `${fmt(p, 2)}× oidc-provider (aim > 1): ${p !== null && p > 1 ? 'met' : 'NOT met'}.`,
      );
    }
  }
  if (webhooks) {
    out.push(
      `\nWebhooks: one worker (npm run worker, CPU 0) delivering user.created to a receiver on 127.0.0.1, changes made through npm run api (CPU 1).\n\n` +
        table(
          ['measure', 'setting', 'value'],
          [
            ['delivery throughput', `backlog of ${webhooks.backlog}`, `${webhooks.deliveredPerSecond.toFixed(0)} events/s`],
            [
              'latency change → receiver, p50',
              `${webhooks.latencyRate}/s for ${webhooks.latencySeconds}s`,
              `${webhooks.p50.toFixed(1)} ms`,
            ],
            ['latency change → receiver, p99', `${webhooks.latencySamples} events`, `${webhooks.p99.toFixed(1)} ms`],
            ...(webhooks.big
              ? [
                  [
                    'delivery throughput',
                    `backlog of ${webhooks.big.messages} in the outbox`,
                    `${webhooks.big.deliveredPerSecond.toFixed(0)} events/s`,
                  ],
                  [
                    'worker RSS draining it',
                    'before → most',
                    `${webhooks.big.rssBeforeMiB.toFixed(0)} → ${webhooks.big.rssMaxMiB.toFixed(0)} MiB`,
                  ],
                ]
              : []),
          ],
        ),
    );
  }
  if (limiter) {
    out.push(
      `\nLimiter: decisions/s on Redis from one connection, ${CONNECTIONS} in flight (bench/limiter.ts).\n\n${limiterTable(limiter)}`,
    );
  }
  if (sdkVerify) {
    out.push(
      `\nSDK: @latchkey/backend verifyToken vs raw node:crypto RS256 verify (cached KeyObject), one process on CPU 0, ${sdkVerify.concurrency} in flight (bench/sdk-verify.ts). Aim: ≥ 0.8.\n\n` +
        table(
          ['measure', 'ops/s', 'vs raw'],
          [
            ['verifyToken (@latchkey/backend)', sdkVerify.sdkPerSecond.toFixed(0), fmt(sdkVerify.ratio, 2)],
            ['raw node:crypto verify', sdkVerify.rawPerSecond.toFixed(0), '1.00'],
          ],
        ),
    );
  }
  if (scim) {
    out.push(
      `\nSCIM: npm run api on CPU 0, ${CONNECTIONS} concurrent clients; ceiling = the userName look-up as one prepared postgres.js query, ${CONNECTIONS} in flight, no HTTP.\n\n` +
        table(
          ['measure', 'setting', 'value', 'vs ceiling'],
          [
            [
              'provision POST /Users',
              `${scim.users} users, empty organization`,
              `${scim.provisionedPerSecond.toFixed(0)} users/s in ${scim.provisionSeconds.toFixed(1)} s`,
              fmt(scim.provisionVsCeiling, 3),
            ],
            [
              'GET /Users?filter=userName eq',
              `p50 ${scim.lookupP50} ms, p99 ${scim.lookupP99} ms, ${scim.lookupNon2xx} non-2xx`,
              `${scim.lookupsPerSecond.toFixed(0)} req/s`,
              fmt(scim.lookupVsCeiling, 2),
            ],
            ['ceiling: one query', '', `${scim.ceilingQueriesPerSecond.toFixed(0)} queries/s`, '1.00'],
          ],
        ),
    );
  }
  if (protection) {
    out.push(
      `\nAttack protection: POST /v1/client/sign_ins (correct password, a new client and address each) on npm run api, ` +
        `lockout + breached passwords + risk-based MFA on vs all off, ${protection.seconds}s each interleaved` +
        `${protection.non2xx ? ` (${protection.non2xx} non-2xx)` : ''}.\n\n` +
        table(
          ['measure', 'on', 'off', 'on ÷ off'],
          [['sign-ins/s', protection.onPerSecond.toFixed(1), protection.offPerSecond.toFixed(1), protection.ratio.toFixed(2)]],
        ) +
        `\nAim ≥ 0.90 (< 10% fewer requests/s): ${protection.ratio >= 0.9 ? 'met' : 'NOT met'}.`,
    );
  }
  if (passwords) {
    out.push(
      `\nPasswords: FAPI on one npm run api process (CPU 0), protections off, ${CONNECTIONS} connections; ceiling = argon2id hashes/s at ${passwords.cost} on CPU 0, ${CONNECTIONS} in flight` +
        `${passwords.non2xx ? ` (${passwords.non2xx} non-2xx)` : ''}.\n\n` +
        table(
          ['operation', 'per second', 'vs hash rate', 'event loop ms/op', 'of it kernel', 'statements/op'],
          [
            [
              'password sign-in',
              passwords.signInPerSecond.toFixed(1),
              passwords.signInRatio.toFixed(2),
              passwords.signInMainMs?.toFixed(1) ?? '-',
              passwords.signInKernelMs?.toFixed(1) ?? '-',
              passwords.signInStatements?.toFixed(1) ?? '-',
            ],
            [
              'sign-up with password',
              passwords.signUpPerSecond.toFixed(1),
              passwords.signUpRatio.toFixed(2),
              passwords.signUpMainMs?.toFixed(1) ?? '-',
              passwords.signUpKernelMs?.toFixed(1) ?? '-',
              passwords.signUpStatements?.toFixed(1) ?? '-',
            ],
            ['argon2id hash (ceiling)', passwords.hashPerSecond.toFixed(1), '1.00', '-', '-', '-'],
          ],
          1,
        ) +
        `\nevent loop ms/op: CPU time of the server's main thread per operation (the rest of the core hashes); aim for sign-in ≤ 3 ms: ${(passwords.signInMainMs ?? Infinity) <= 3 ? 'met' : 'NOT met'}.` +
        `\nof it kernel: the system-time share (socket writes to PostgreSQL and the clients; on a loaded machine it includes waking other processes). Run without BENCH_CPU_PROF: the profiler itself costs main-thread CPU.` +
        `\nstatements/op: statements sent to PostgreSQL per operation (the server's latchkey_database_statements_total; BEGIN and COMMIT not counted).` +
        `\nAim ≥ 0.90: sign-in ${passwords.signInRatio >= 0.9 ? 'met' : 'NOT met'}, sign-up ${passwords.signUpRatio >= 0.9 ? 'met' : 'NOT met'}.`,
    );
  }
  if (cluster) {
    out.push(
      `\nCluster: GET /v1/users/:id on npm run api, ${cluster.cpus} cores (os.cpus().length), servers and autocannon unpinned.\n\n` +
        table(
          ['HTTP workers', 'req/s', 'p99 ms', 'vs one'],
          cluster.rows.map((r) => [
            String(r.workers),
            r.perSecond.toFixed(0),
            r.p99.toFixed(1),
            (r.perSecond / cluster!.rows[0]!.perSecond).toFixed(2),
          ]),
          1,
        ),
    );
  }
  if (growth?.steps.length) {
    out.push(
      `\nGrowth: one npm run api process (CPU 0); users and sessions seeded by SQL; refresh = fresh sessions of random users, query = GET /v1/users?query=<one address>&limit=10.\n\n` +
        table(
          ['users', 'refresh/s', 'refresh p99 ms', 'query/s', 'query p99 ms', 'seed s'],
          growth.steps.map((g) => [
            String(g.users),
            g.refreshPerSecond.toFixed(0),
            g.refreshP99.toFixed(1),
            g.queryPerSecond.toFixed(0),
            g.queryP99.toFixed(1),
            g.seedSeconds.toFixed(1),
          ]),
          1,
        ),
    );
  }
  if (growth?.searches.length) {
    const users = growth.searches[0]!.users;
    const members = growth.searches.find((r) => r.subject === 'members')?.size;
    out.push(
      `\nSearch at ${users} users (the growth row's process): GET /v1/users?… over the instance${members ? `, and GET /v1/organizations/:id/memberships?… over an organization of ${members} of them (memberships seeded by SQL)` : ''}. Aim: ≥ 300 req/s, p99 ≤ 100 ms.\n\n` +
        table(
          ['of', 'request', 'req/s', 'p99 ms', 'shown', 'aim'],
          growth.searches.map((r) => [
            r.subject,
            r.request,
            r.perSecond.toFixed(0),
            r.p99.toFixed(1),
            String(r.found),
            r.perSecond >= 300 && r.p99 <= 100 ? 'met' : 'NOT met',
          ]),
          2,
        ),
    );
  }
  if (consoleRow?.rows.length) {
    out.push(
      `\nConsole: one npm run api process; ${consoleRow.users} users, ${consoleRow.organizations} organizations (the users their members), ${consoleRow.auditRows} audit rows, seeded by SQL in ${consoleRow.seedSeconds.toFixed(0)} s; each call as the console page makes it, through the dashboard API with an operator's session cookie. Aim: p99 ≤ ${CONSOLE_P99_AIM_MS} ms.\n\n` +
        table(
          ['page', 'call', 'req/s', 'p50 ms', 'p99 ms', 'shown', 'aim'],
          consoleRow.rows.map((r) => [
            r.page,
            r.request,
            r.perSecond.toFixed(0),
            r.p50.toFixed(1),
            r.p99.toFixed(1),
            String(r.shown),
            r.p99 <= CONSOLE_P99_AIM_MS ? 'met' : 'NOT met',
          ]),
          2,
        ),
    );
  }
  if (soak) {
    out.push(
      `\nSoak: ${soak.seconds}s of mixed load (mint, verify, refresh, get, search, revoke) on one npm run api process, ${soak.operations} operations, ${soak.failures} failures.\n\n` +
        table(
          ['RSS start MiB (after 1/5)', 'end MiB', 'max MiB', 'slope MiB/min'],
          [[soak.rssStartMiB.toFixed(1), soak.rssEndMiB.toFixed(1), soak.rssMaxMiB.toFixed(1), soak.slopeMiBPerMinute.toFixed(2)]],
          1,
        ),
    );
  }
  let faults: unknown = null;
  if (!ONLY || ONLY.has('faults')) {
    log('fault scenarios (bench/faults.ts): their own PostgreSQL and Redis, two API nodes and a worker');
    const f = await run(process.execPath, ['--import', 'tsx', 'bench/faults.ts'], { timeoutMs: 30 * 60_000 });
    process.stderr.write(f.stderr);
    if (f.code === 0) {
      faults = lastJsonLine(f.stdout);
      out.push(`\nFaults (bench/faults.ts; BENCH_FAULT_* to set the durations):\n${f.stdout.trim().split('\n').slice(0, -1).join('\n')}`);
    } else log(`  ! faults failed (${f.code})`);
  }
  process.stdout.write(`\n${out.join('\n')}\n`);

  const result = {
    date: new Date().toISOString(),
    commit,
    node: process.version,
    cpu: cpuModel,
    cpus,
    pinned: PIN,
    connections: CONNECTIONS,
    warmupSeconds: WARMUP,
    durationSeconds: DURATION,
    rounds: ROUNDS,
    loadAverage: loadAfter,
    users: USERS,
    postgres: (await pgVersion()) ?? null,
    fastPathVsDbCeiling: aim,
    joseSignPerSecond: signRate,
    joseVerifyPerSecond: verifyRate,
    refreshTargetPerSecond: REFRESH_TARGET,
    elapsedSeconds: Math.round((Date.now() - started) / 1000),
    rows,
    webhooks,
    limiter,
    sdkVerify,
    scim,
    protection,
    passwords,
    cluster,
    growth,
    soak,
    console: consoleRow,
    faults,
  };
  writeFileSync(path.join(RESULTS_DIR, 'latest.json'), `${JSON.stringify(result, null, 2)}\n`);
  log(`results written to ${path.relative(ROOT, path.join(RESULTS_DIR, 'latest.json'))} (${result.elapsedSeconds}s)`);
}

async function pgVersion(): Promise<string | null> {
  const sql = postgres(DATABASE_URL, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ v: string }[]>`select current_setting('server_version') as v`;
    return row?.v ?? null;
  } catch {
    return null;
  } finally {
    await sql.end({ timeout: 2 });
  }
}

// Fail on the obvious before spending minutes.
if (!existsSync(path.join(ROOT, 'node_modules', 'autocannon', 'package.json'))) {
  log('autocannon is not installed: run npm install');
  process.exit(1);
}

main().then(
  () => cleanupAndExit(0),
  (err: unknown) => {
    log(err instanceof Error ? (err.stack ?? err.message) : String(err));
    cleanupAndExit(1);
  },
);
