/**
 * The scale-out rows of `npm run bench` (issue #24), each a target of bench/run.ts:
 *
 *   passwords  FAPI password sign-in and sign-up (requests/s) on one `npm run api` process pinned
 *              to CPU 0, beside the argon2id hash rate at the configured cost on the same core
 *              (bench/ceiling-argon2.ts). Aim: ≥ 0.9 of the hash rate.
 *   cluster    GET /v1/users/:id on `npm run api` with WEB_CONCURRENCY=1 and with one HTTP worker
 *              per core (os.cpus().length), servers unpinned, reported with the core count.
 *   growth     token refresh and GET /v1/users?query= as the instance grows 1k → 10k → 100k → 1M
 *              users (BENCH_GROWTH_MAX caps it), users and sessions seeded with INSERT … SELECT
 *              generate_series, not through the API.
 *   soak       BENCH_SOAK_SECONDS (default 600) of mixed load (mint, verify, refresh, get, search)
 *              on one `npm run api` process, its RSS sampled every 5 s: start, end and slope.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import autocannon from 'autocannon';
import postgres from 'postgres';
import type { BenchServer, WebhookBenchHelpers } from './webhooks';

type Helpers = WebhookBenchHelpers;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The API as one node process (no npm in between), so its pid is the server's own; profiled under BENCH_CPU_PROF. */
const PROF = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
const API = [process.execPath, [...PROF, '--import', 'tsx', 'server/main/api.ts']] as const;

async function json(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  const parsed = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed!;
}

async function newInstance(h: Helpers, name: string) {
  const instance = (await h.cli(['instance', 'create', '--name', name, '--env', 'test', '--json'])) as {
    instance_id: string;
    publishable_key: string;
  };
  const key = (await h.cli(['keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--json'])) as { secret: string };
  return { id: instance.instance_id, publishableKey: instance.publishable_key, auth: { authorization: `Bearer ${key.secret}` } };
}

function cannon(opts: autocannon.Options) {
  return new Promise<autocannon.Result>((resolve, reject) => autocannon(opts, (err, result) => (err ? reject(err) : resolve(result))));
}
const okPerSecond = (r: autocannon.Result) => r['2xx'] / r.duration;

// ---------------------------------------------------------------- passwords

export interface PasswordBenchResult {
  hashPerSecond: number;
  cost: string;
  signInPerSecond: number;
  signUpPerSecond: number;
  signInRatio: number;
  signUpRatio: number;
  /** CPU ms of the server's main thread (the event loop) per operation: what is not hashing. Null off Linux. */
  signInMainMs: number | null;
  signUpMainMs: number | null;
  /** The kernel's share (stime) of signInMainMs / signUpMainMs: socket writes to PostgreSQL and the clients. */
  signInKernelMs: number | null;
  signUpKernelMs: number | null;
  /** Statements sent to PostgreSQL per operation (the server's latchkey_database_statements_total). */
  signInStatements: number | null;
  signUpStatements: number | null;
  non2xx: number;
}

/** CPU time (user + system, ms) of a process's main thread so far, from /proc; null where there is none. */
function mainThreadCpuMs(pid: number): number | null {
  return mainThreadTimes(pid)?.total ?? null;
}
/** The main thread's user and system (kernel) CPU time so far, ms. */
function mainThreadTimes(pid: number): { total: number; kernel: number } | null {
  try {
    const fields = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const user = (Number(fields[11]) * 1000) / CLOCK_TICKS;
    const kernel = (Number(fields[12]) * 1000) / CLOCK_TICKS;
    return { total: user + kernel, kernel };
  } catch {
    return null;
  }
}
/** Statements the server has sent to PostgreSQL (its /metrics), or null. Two scrapes bracket a row. */
async function statementsSent(base: string): Promise<number | null> {
  const text = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(10_000) }).then(
    (r) => r.text(),
    () => '',
  );
  const m = /^latchkey_database_statements_total (\d+)/m.exec(text);
  return m ? Number(m[1]) : null;
}
/** USER_HZ: 100 on every Linux build that matters here. */
const CLOCK_TICKS = 100;

export async function measurePasswords(
  h: Helpers & { runPinned(args: string[], env: Record<string, string>): Promise<string> },
  opts: { port: number; seconds: number; connections: number },
): Promise<PasswordBenchResult> {
  const server = h.startServer(
    'passwords',
    API[0],
    [...API[1]],
    opts.port,
    { TRUST_PROXY: '1', WEBHOOK_WORKER: '0', PASSWORD_HASH_QUEUE: '1000', WEB_CONCURRENCY: '1' },
    0,
  );
  try {
    await h.waitFor(server, '/healthz', 60_000);
    const base = `http://127.0.0.1:${opts.port}`;
    const i = await newInstance(h, 'Passwords');
    // Protections off: the rows measure the password path, bench/protection.ts their cost.
    await json(`${base}/v1/attack_protection`, 'PATCH', i.auth, {
      user_lockout: { enabled: false },
      breached_passwords: { enabled: false },
    });
    await json(`${base}/v1/risk_based_mfa`, 'PATCH', i.auth, { enabled: false });
    const emails: string[] = [];
    for (let n = 0; n < 20; n++) {
      emails.push(`pw${n}@passwords.example.com`);
      await json(`${base}/v1/users`, 'POST', i.auth, { email_address: [emails[n]], password: 'a bench passphrase 42' });
    }
    let addr = 0;
    let k = 0;
    const fapi = `${base}/fapi/${i.id}/v1/client`;
    const headers = () => ({
      'content-type': 'application/json',
      'x-publishable-key': i.publishableKey,
      'x-forwarded-for': `10.9.${(++addr >> 8) & 255}.${addr & 255}`,
    });
    const signIn = (seconds: number) =>
      cannon({
        url: `${fapi}/sign_ins`,
        connections: opts.connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: headers(),
              body: JSON.stringify({ identifier: emails[k++ % emails.length], password: 'a bench passphrase 42' }),
            }),
          },
        ],
      });
    const signUp = (seconds: number) =>
      cannon({
        url: `${fapi}/sign_ups`,
        connections: opts.connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: headers(),
              body: JSON.stringify({
                email_address: `new${++k}.${randomBytes(3).toString('hex')}@signup.example.com`,
                password: 'a new bench passphrase 43',
              }),
            }),
          },
        ],
      });
    await signIn(1);
    await signUp(1);
    const half = opts.seconds / 2;
    const results = { in: [] as autocannon.Result[], up: [] as autocannon.Result[] };
    const mainMs = { in: 0 as number | null, up: 0 as number | null };
    const statements = { in: 0 as number | null, up: 0 as number | null };
    const kernelMs = { in: 0 as number | null, up: 0 as number | null };
    const measured = async (row: 'in' | 'up', run: () => Promise<autocannon.Result>) => {
      const kBefore = mainThreadTimes(server.child.pid!)?.kernel ?? null;
      const before = mainThreadCpuMs(server.child.pid!);
      const sentBefore = await statementsSent(base);
      results[row].push(await run());
      const after = mainThreadCpuMs(server.child.pid!);
      const kAfter = mainThreadTimes(server.child.pid!)?.kernel ?? null;
      kernelMs[row] = kBefore === null || kAfter === null || kernelMs[row] === null ? null : kernelMs[row] + kAfter - kBefore;
      const sentAfter = await statementsSent(base);
      mainMs[row] = before === null || after === null || mainMs[row] === null ? null : mainMs[row] + after - before;
      statements[row] =
        sentBefore === null || sentAfter === null || statements[row] === null ? null : statements[row] + sentAfter - sentBefore;
    };
    for (let r = 0; r < 2; r++) {
      await measured('in', () => signIn(half));
      await measured('up', () => signUp(half));
    }
    const rate = (rs: autocannon.Result[]) => rs.reduce((a, r) => a + r['2xx'], 0) / rs.reduce((a, r) => a + r.duration, 0);
    const non2xx = [...results.in, ...results.up].reduce((a, r) => a + r.non2xx, 0);
    await h.stop(server.child);
    const ceiling = JSON.parse(
      (await h.runPinned(['bench/ceiling-argon2.ts'], { BENCH_SECONDS: String(opts.seconds), BENCH_INFLIGHT: String(opts.connections) }))
        .trim()
        .split('\n')
        .pop()!,
    ) as {
      perSecond: number;
      memoryCost: number;
      timeCost: number;
      parallelism: number;
    };
    const signInPerSecond = rate(results.in);
    const signUpPerSecond = rate(results.up);
    const perOp = (ms: number | null, rs: autocannon.Result[]) => (ms === null ? null : ms / rs.reduce((a, r) => a + r['2xx'], 0));
    return {
      hashPerSecond: ceiling.perSecond,
      cost: `m=${ceiling.memoryCost} KiB, t=${ceiling.timeCost}, p=${ceiling.parallelism}`,
      signInPerSecond,
      signUpPerSecond,
      signInRatio: signInPerSecond / ceiling.perSecond,
      signInMainMs: perOp(mainMs.in, results.in),
      signUpMainMs: perOp(mainMs.up, results.up),
      signInKernelMs: perOp(kernelMs.in, results.in),
      signUpKernelMs: perOp(kernelMs.up, results.up),
      signUpRatio: signUpPerSecond / ceiling.perSecond,
      signInStatements: perOp(statements.in, results.in),
      signUpStatements: perOp(statements.up, results.up),
      non2xx,
    };
  } finally {
    await h.stop(server.child);
  }
}

// ---------------------------------------------------------------- cluster

export interface ClusterBenchResult {
  cpus: number;
  rows: { workers: number; perSecond: number; p99: number }[];
}

export async function measureCluster(
  h: Helpers,
  opts: { port: number; seconds: number; connections: number; userPath: string; auth: Record<string, string> },
): Promise<ClusterBenchResult> {
  const cpus = os.cpus().length;
  const rows: ClusterBenchResult['rows'] = [];
  for (const workers of [...new Set([1, cpus])]) {
    const server = h.startServer(
      `cluster ×${workers}`,
      API[0],
      [...API[1]],
      opts.port,
      { WEB_CONCURRENCY: String(workers), WEBHOOK_WORKER: '0' },
      null,
    );
    try {
      await h.waitFor(server, '/readyz', 120_000);
      const url = `http://127.0.0.1:${opts.port}${opts.userPath}`;
      await cannon({ url, connections: opts.connections * workers, duration: 2, headers: opts.auth });
      const r = await cannon({ url, connections: opts.connections * workers, duration: opts.seconds, headers: opts.auth });
      rows.push({ workers, perSecond: okPerSecond(r), p99: r.latency.p99 });
    } finally {
      await h.stop(server.child);
    }
  }
  return { cpus, rows };
}

// ---------------------------------------------------------------- growth

export interface GrowthRow {
  users: number;
  seedSeconds: number;
  refreshPerSecond: number;
  refreshP99: number;
  queryPerSecond: number;
  queryP99: number;
}

/**
 * One search or list request at the last growth step: `GET /v1/users?…` over the instance's `users`
 * users, or `GET /v1/organizations/:id/memberships?…` over an organization of `members` of them.
 */
export interface SearchRow {
  subject: 'users' | 'members';
  /** The users of the instance (users) or the members of the organization (members). */
  size: number;
  users: number;
  request: string;
  perSecond: number;
  p99: number;
  /** Items the request's first page showed (a search's check). */
  found: number;
}

export interface GrowthResult {
  steps: GrowthRow[];
  searches: SearchRow[];
}

const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * Seeded users n = from..to of one instance: ids `user_<tag><n>`, first name `<firstName><n>`, username
 * `<local>_<n>`, one verified address `<local><n>@<domain>` each and, with `phones`, a verified phone
 * `+1555<n, 7 digits>`.
 */
interface SeededUsers {
  tag: string;
  firstName: string;
  local: string;
  domain: string;
  phones: boolean;
}
const GROWTH_USERS: SeededUsers = { tag: 'grow', firstName: 'Grow', local: 'g', domain: 'growth.example.com', phones: true };
const CONSOLE_USERS: SeededUsers = { tag: 'cons', firstName: 'Console', local: 'c', domain: 'console.example.com', phones: false };

async function seedUsers(db: postgres.Sql, instanceId: string, u: SeededUsers, from: number, to: number) {
  await db`
    insert into users (id, instance_id, first_name, last_name, username, username_key, primary_email_address_id, created_at, updated_at)
    select 'user_' || ${u.tag} || lpad(n::text, 8, '0'), ${instanceId}, ${u.firstName} || n, 'Bench', ${u.local} || '_' || n, ${u.local} || '_' || n,
           'idn_' || ${u.tag} || lpad(n::text, 8, '0'), (extract(epoch from now()) * 1000)::bigint - n, (extract(epoch from now()) * 1000)::bigint - n
      from generate_series(${from}::int, ${to}::int) n`;
  await db`
    insert into email_addresses (id, instance_id, user_id, email_address, email_key, verification_status, created_at, updated_at)
    select 'idn_' || ${u.tag} || lpad(n::text, 8, '0'), ${instanceId}, 'user_' || ${u.tag} || lpad(n::text, 8, '0'),
           ${u.local} || n || '@' || ${u.domain}, ${u.local} || n || '@' || ${u.domain}, 'verified',
           (extract(epoch from now()) * 1000)::bigint, (extract(epoch from now()) * 1000)::bigint
      from generate_series(${from}::int, ${to}::int) n`;
  if (u.phones)
    await db`
      insert into phone_numbers (id, instance_id, user_id, phone_number, verification_status, created_at, updated_at)
      select 'idn_p' || ${u.tag} || lpad(n::text, 8, '0'), ${instanceId}, 'user_' || ${u.tag} || lpad(n::text, 8, '0'),
             '+1555' || lpad(n::text, 7, '0'), 'verified', (extract(epoch from now()) * 1000)::bigint, (extract(epoch from now()) * 1000)::bigint
        from generate_series(${from}::int, ${to}::int) n`;
}

/** Each request under load, then once more for what its page showed. */
async function searchRows(
  h: Helpers,
  i: Awaited<ReturnType<typeof newInstance>>,
  subject: SearchRow['subject'],
  sizes: { size: number; users: number },
  urlOf: (qs: string) => string,
  requests: [string, string][],
  opts: { seconds: number; connections: number },
): Promise<SearchRow[]> {
  const rows: SearchRow[] = [];
  for (const [request, qs] of requests) {
    const url = urlOf(qs);
    const r = await cannon({ url, connections: opts.connections, duration: opts.seconds, headers: i.auth });
    const check = await json(url, 'GET', i.auth);
    rows.push({ subject, ...sizes, request, perSecond: okPerSecond(r), p99: r.latency.p99, found: (check.data as unknown[]).length });
    h.log(
      `  ${subject} ${sizes.size}: ${request} ${rows.at(-1)!.perSecond.toFixed(0)}/s, p99 ${r.latency.p99} ms, ${rows.at(-1)!.found} shown`,
    );
  }
  return rows;
}

/**
 * The users' search at the last growth step (`GET /v1/users?query=`, as the console and support tools
 * call it): what a person types to find someone among users most of whom share one email domain.
 */
function measureUserSearch(
  h: Helpers,
  base: string,
  i: Awaited<ReturnType<typeof newInstance>>,
  users: number,
  opts: { seconds: number; connections: number },
): Promise<SearchRow[]> {
  const target = Math.max(1, Math.floor(users / 2));
  const short = String(target).slice(0, -2) || '1';
  return searchRows(
    h,
    i,
    'users',
    { size: users, users },
    (qs) => `${base}/v1/users?${qs}`,
    [
      ['search: an exact address', `limit=20&query=g${target}@growth.example.com`],
      ['search: a prefix of a name', `limit=20&query=grow${short}`],
      ['search: a prefix of a username', `limit=20&query=g_${short}`],
      ['search: a prefix of a phone', `limit=20&query=${encodeURIComponent(`+1555${String(target).padStart(7, '0').slice(0, 5)}`)}`],
      ['search: the shared domain', `limit=20&query=growth.example`],
    ],
    opts,
  );
}

/**
 * The member rows: after the last growth step, an organization whose members are the first
 * `count` growth users (memberships seeded by SQL), and its member list and member search
 * (`GET /v1/organizations/:id/memberships`, as the console and Clerk's SDKs call it) under load.
 */
async function measureMembers(
  h: Helpers,
  db: postgres.Sql,
  base: string,
  i: Awaited<ReturnType<typeof newInstance>>,
  users: number,
  opts: { seconds: number; connections: number; count: number },
): Promise<SearchRow[]> {
  const count = Math.min(opts.count, users);
  const org = (await json(`${base}/v1/organizations`, 'POST', i.auth, { name: 'Members bench', created_by: 'user_grow00000001' })) as {
    id: string;
  };
  const t0 = Date.now();
  await db`
    insert into organization_memberships (id, instance_id, organization_id, user_id, role, created_at, updated_at)
    select 'orgmem_grow' || lpad(n::text, 8, '0'), ${i.id}, ${org.id}, 'user_grow' || lpad(n::text, 8, '0'), 'org:member',
           (extract(epoch from now()) * 1000)::bigint, (extract(epoch from now()) * 1000)::bigint
      from generate_series(2, ${count}::int) n`;
  await db`vacuum analyze organization_memberships`;
  h.log(`  members: ${count} memberships seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const target = Math.max(1, Math.floor(count / 2));
  return searchRows(
    h,
    i,
    'members',
    { size: count, users },
    (qs) => `${base}/v1/organizations/${org.id}/memberships?${qs}`,
    [
      ['list, first page (limit=20)', `limit=20`],
      ['list, a page deep in (starting_after)', `limit=20&starting_after=orgmem_grow${String(target).padStart(8, '0')}`],
      ['search: an exact address', `limit=20&query=g${target}@growth.example.com`],
      ['search: a prefix of a name', `limit=20&query=grow${target}`],
      ['search: the shared domain', `limit=20&query=growth.example`],
    ],
    opts,
  );
}

export async function measureGrowth(
  h: Helpers,
  opts: {
    port: number;
    seconds: number;
    connections: number;
    databaseUrl: string;
    max: number;
    sessionsPerStep: number;
    /** Members of the member rows' organization (0: no member rows). */
    members: number;
  },
): Promise<GrowthResult> {
  const sizes = [1_000, 10_000, 100_000, 1_000_000].filter((n) => n <= opts.max);
  const db = postgres(opts.databaseUrl, { max: 2, onnotice: () => {} });
  const server = h.startServer('growth', API[0], [...API[1]], opts.port, { WEB_CONCURRENCY: '1', WEBHOOK_WORKER: '0' }, 0);
  const rows: GrowthRow[] = [];
  let searches: SearchRow[] = [];
  try {
    await h.waitFor(server, '/readyz', 120_000);
    const base = `http://127.0.0.1:${opts.port}`;
    const i = await newInstance(h, 'Growth');
    let have = 0;
    for (const size of sizes) {
      const t0 = Date.now();
      // Users g<n> with one address each, in slices of 100k rows.
      for (let from = have + 1; from <= size; from += 100_000) {
        const to = Math.min(size, from + 99_999);
        await seedUsers(db, i.id, GROWTH_USERS, from, to);
      }
      // As autovacuum leaves a settled instance (visibility map set, so index-only scans skip the heap).
      for (const table of ['users', 'email_addresses', 'phone_numbers']) await db.unsafe(`vacuum analyze ${table}`);
      have = size;
      // Fresh sessions with known refresh tokens, for users spread over the whole table.
      const now = Date.now();
      const tokens = Array.from({ length: opts.sessionsPerStep }, () => `rt_${randomBytes(32).toString('base64url')}`);
      const ids = tokens.map((_, n) => `sess_grow${size}_${n}`);
      const userIds = tokens.map(() => `user_grow${String(1 + Math.floor(Math.random() * size)).padStart(8, '0')}`);
      await db`
        insert into sessions (id, instance_id, user_id, status, last_active_at, expire_at, abandon_at, created_at, updated_at)
        select id, ${i.id}, user_id, 'active', ${now}, ${now + 86_400_000}, ${now + 86_400_000}, ${now}, ${now}
          from unnest(${ids}::text[], ${userIds}::text[]) as t(id, user_id)`;
      await db`
        insert into refresh_tokens (digest, session_id, created_at)
        select digest, session_id, ${now} from unnest(${tokens.map(sha256Hex)}::text[], ${ids}::text[]) as t(digest, session_id)`;
      const seedSeconds = (Date.now() - t0) / 1000;

      const fapi = `${base}/fapi/${i.id}/v1/sessions`;
      let next = 0;
      const refresh = await cannon({
        url: base,
        connections: opts.connections,
        duration: opts.seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => {
              const n = next++ % tokens.length; // past the pool: a reused token, answered 401 and not counted
              return {
                ...req,
                path: new URL(`${fapi}/${ids[n]}/refresh`).pathname,
                headers: { 'content-type': 'application/json' },
                body: JSON.stringify({ refresh_token: tokens[n] }),
              };
            },
          },
        ],
      });
      if (next > tokens.length) h.log(`  ! growth ${size}: the refresh pool (${tokens.length}) ran dry; raise BENCH_GROWTH_SESSIONS`);
      const target = Math.max(1, Math.floor(size / 2));
      const query = await cannon({
        url: `${base}/v1/users?query=g${target}@growth&limit=10`,
        connections: opts.connections,
        duration: opts.seconds,
        headers: i.auth,
      });
      const check = await json(`${base}/v1/users?query=g${target}@growth&limit=10`, 'GET', i.auth);
      if ((check.data as unknown[]).length !== 1)
        h.log(`  ! growth ${size}: query matched ${(check.data as unknown[]).length} users, not 1`);
      rows.push({
        users: size,
        seedSeconds,
        refreshPerSecond: Math.min(tokens.length, refresh['2xx']) / refresh.duration,
        refreshP99: refresh.latency.p99,
        queryPerSecond: okPerSecond(query),
        queryP99: query.latency.p99,
      });
      h.log(
        `growth ${size}: refresh ${rows.at(-1)!.refreshPerSecond.toFixed(0)}/s, query ${rows.at(-1)!.queryPerSecond.toFixed(0)}/s (seeded in ${seedSeconds.toFixed(1)} s)`,
      );
    }
    if (have > 0) searches = await measureUserSearch(h, base, i, have, opts);
    if (opts.members > 0 && have > 0) searches.push(...(await measureMembers(h, db, base, i, have, { ...opts, count: opts.members })));
  } finally {
    await h.stop(server.child);
    await db.end({ timeout: 2 });
  }
  return { steps: rows, searches };
}

// ---------------------------------------------------------------- console

/** One API call of a console page, on an instance of the console row's size. */
export interface ConsoleRow {
  page: string;
  request: string;
  perSecond: number;
  p50: number;
  p99: number;
  /** Items the call's page showed (its check). */
  shown: number;
}

export interface ConsoleResult {
  users: number;
  organizations: number;
  auditRows: number;
  seedSeconds: number;
  rows: ConsoleRow[];
}

/**
 * The console row (issue #50 item 4): one instance with `users` users (one address each),
 * `organizations` organizations whose memberships are those users spread evenly (members_count
 * kept by migration 0052's triggers as the memberships are inserted), and `auditRows` audit log
 * entries, all seeded by SQL in slices; then the calls the console's users, organizations and
 * audit pages and its overview make, through the dashboard API as an operator's browser calls
 * it (the session cookie of the console's first operator, claimed with a setup link), under load.
 */
export async function measureConsole(
  h: Helpers,
  opts: {
    port: number;
    seconds: number;
    connections: number;
    databaseUrl: string;
    users: number;
    organizations: number;
    auditRows: number;
  },
): Promise<ConsoleResult> {
  const db = postgres(opts.databaseUrl, { max: 2, onnotice: () => {} });
  const server = h.startServer('console', API[0], [...API[1]], opts.port, { WEB_CONCURRENCY: '1', WEBHOOK_WORKER: '0' }, 0);
  const rows: ConsoleRow[] = [];
  const { users, organizations, auditRows } = opts;
  let seedSeconds = 0;
  try {
    await h.waitFor(server, '/readyz', 120_000);
    const base = `http://127.0.0.1:${opts.port}`;
    const operator = await consoleOperator(h, base, opts.port);
    const i = (await json(`${base}/v1/dashboard/accounts/${operator.accountId}/instances`, 'POST', operator.writeHeaders, {
      name: 'Console',
      environment: 'test',
    })) as { id: string };
    const t0 = Date.now();
    const slices = async (total: number, size: number, each: (from: number, to: number) => Promise<unknown>) => {
      for (let from = 1; from <= total; from += size) await each(from, Math.min(total, from + size - 1));
    };
    await slices(users, 100_000, async (from, to) => {
      await seedUsers(db, i.id, CONSOLE_USERS, from, to);
    });
    await slices(
      organizations,
      100_000,
      (from, to) => db`
      insert into organizations (id, instance_id, name, slug, created_at, updated_at)
      select 'org_cons' || lpad(n::text, 8, '0'), ${i.id}, 'Console org ' || n, 'console-org-' || n, (extract(epoch from now()) * 1000)::bigint - n, (extract(epoch from now()) * 1000)::bigint - n
        from generate_series(${from}::int, ${to}::int) n`,
    );
    if (organizations > 0)
      await slices(
        users,
        100_000,
        (from, to) => db`
        insert into organization_memberships (id, instance_id, organization_id, user_id, role, created_at, updated_at)
        select 'orgmem_cons' || lpad(n::text, 8, '0'), ${i.id}, 'org_cons' || lpad((1 + (n - 1) % ${organizations}::int)::text, 8, '0'),
               'user_cons' || lpad(n::text, 8, '0'), 'org:member', (extract(epoch from now()) * 1000)::bigint, (extract(epoch from now()) * 1000)::bigint
          from generate_series(${from}::int, ${to}::int) n`,
      );
    const actions = ['user.created', 'session.created', 'organization.updated', 'user.updated', 'organization_membership.created'];
    await slices(
      auditRows,
      1_000_000,
      (from, to) => db`
      insert into audit_logs (id, instance_id, actor, actor_kind, action, target, details, created_at)
      select 'aud_cons' || lpad(n::text, 9, '0'), ${i.id}, 'system', 'system', (${actions}::text[])[1 + n % ${actions.length}::int],
             'user_cons' || lpad((1 + n % greatest(${users}::int, 1))::text, 8, '0'), '{}'::jsonb, (extract(epoch from now()) * 1000)::bigint - n
        from generate_series(${from}::int, ${to}::int) n`,
    );
    for (const table of ['users', 'email_addresses', 'organizations', 'organization_memberships', 'audit_logs'])
      await db.unsafe(`vacuum analyze ${table}`);
    seedSeconds = (Date.now() - t0) / 1000;
    h.log(`  console: ${users} users, ${organizations} organizations, ${auditRows} audit rows seeded in ${seedSeconds.toFixed(1)} s`);

    const deepUser = `user_cons${String(Math.max(1, Math.floor(users / 2))).padStart(8, '0')}`;
    const deepOrg = `org_cons${String(Math.max(1, Math.floor(organizations / 2))).padStart(8, '0')}`;
    const instance = `/v1/dashboard/accounts/${operator.accountId}/instances/${i.id}`;
    const calls: [string, string, string][] = [
      ['overview', 'the instance', ''],
      ['overview', 'metrics, 30 days', '/metrics?days=30'],
      ['overview', 'secret keys', '/keys'],
      ['users', 'first page', '/users?limit=20'],
      ['users', 'a page deep in', `/users?limit=20&starting_after=${deepUser}`],
      ['users', 'search: an exact address', `/users?limit=20&query=c${Math.max(1, Math.floor(users / 2))}@console.example.com`],
      ['organizations', 'first page (members_count)', '/organizations?limit=20'],
      ['organizations', 'a page deep in', `/organizations?limit=20&starting_after=${deepOrg}`],
      ['audit', 'first page', '/audit_logs?limit=25'],
      ['audit', 'filtered by action', '/audit_logs?limit=25&action=organization.updated'],
    ];
    for (const [page, request, path] of calls) {
      const url = `${base}${instance}${path}`;
      const headers = operator.headers;
      await cannon({ url, connections: opts.connections, duration: 1, headers }); // warm-up (plans, caches), not counted
      const r = await cannon({ url, connections: opts.connections, duration: opts.seconds, headers });
      const check = await json(url, 'GET', headers);
      if (r.non2xx > 0) h.log(`  ! console ${page}: ${request} answered ${r.non2xx} non-2xx`);
      rows.push({
        page,
        request,
        perSecond: okPerSecond(r),
        p50: r.latency.p50,
        p99: r.latency.p99,
        shown: Array.isArray(check.data) ? check.data.length : 1,
      });
      h.log(`  console ${page}: ${request} ${rows.at(-1)!.perSecond.toFixed(0)}/s, p99 ${r.latency.p99} ms, ${rows.at(-1)!.shown} shown`);
    }
  } finally {
    await h.stop(server.child);
    await db.end({ timeout: 2 });
  }
  return { users, organizations, auditRows, seedSeconds, rows };
}

/** The console's first operator, claimed with a setup link as a new deployment's owner does: their browser's session cookie and account. */
async function consoleOperator(h: Helpers, base: string, port: number) {
  const { url } = (await h.cli(['setup-link', '--json'])) as { url: string };
  // The console's origin (PUBLIC_URL's default), which its cookie-authenticated writes must come from.
  const origin = `http://localhost:${port}`;
  const res = await fetch(`${base}/v1/dashboard/setup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin },
    body: JSON.stringify({
      token: new URL(url).searchParams.get('token'),
      email_address: 'operator@bench.example.com',
      password: 'a bench operator passphrase',
      first_name: 'Bench',
    }),
  });
  const body = (await res.json()) as { accounts?: { id: string }[] };
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__console_client='));
  if (res.status !== 201 || !cookie || !body.accounts?.[0]) throw new Error(`console setup: ${res.status} ${JSON.stringify(body)}`);
  const headers = { cookie: cookie.split(';')[0]! };
  return { accountId: body.accounts[0].id, headers, writeHeaders: { ...headers, origin } };
}

// ---------------------------------------------------------------- soak

export interface SoakResult {
  seconds: number;
  operations: number;
  failures: number;
  rssStartMiB: number;
  rssEndMiB: number;
  rssMaxMiB: number;
  /** Least-squares slope of RSS over the run after its first fifth (warm-up), MiB per minute. */
  slopeMiBPerMinute: number;
}

const rssMiB = (pid: number) => {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
};

export async function measureSoak(h: Helpers, opts: { port: number; seconds: number; inFlight: number }): Promise<SoakResult> {
  const server: BenchServer = h.startServer('soak', API[0], [...API[1]], opts.port, { WEB_CONCURRENCY: '1', WEBHOOK_WORKER: '0' }, 0);
  try {
    await h.waitFor(server, '/readyz', 120_000);
    const base = `http://127.0.0.1:${opts.port}`;
    const i = await newInstance(h, 'Soak');
    const userIds: string[] = [];
    for (let n = 0; n < 50; n++)
      userIds.push(
        String(
          (await json(`${base}/v1/users`, 'POST', i.auth, { email_address: [`soak${n}@soak.example.com`], first_name: `Soak${n}` })).id,
        ),
      );
    const pid = server.child.pid!;
    const samples: [number, number][] = [];
    const t0 = Date.now();
    const end = t0 + opts.seconds * 1000;
    let operations = 0;
    let failures = 0;
    const step = async (p: Promise<unknown>) => {
      try {
        await p;
        operations++;
      } catch {
        failures++;
      }
    };
    const sampler = setInterval(() => samples.push([(Date.now() - t0) / 1000, rssMiB(pid)]), 5000);
    samples.push([0, rssMiB(pid)]);
    let n = 0;
    await Promise.all(
      Array.from({ length: opts.inFlight }, async () => {
        while (Date.now() < end) {
          const userId = userIds[n++ % userIds.length]!;
          const s = (await json(`${base}/v1/sessions`, 'POST', i.auth, { user_id: userId }).catch(() => null)) as {
            id: string;
            jwt: string;
            refresh_token: string;
          } | null;
          if (!s) {
            failures++;
            continue;
          }
          operations++;
          await step(json(`${base}/v1/sessions/verify`, 'POST', i.auth, { token: s.jwt }));
          await step(json(`${base}/fapi/${i.id}/v1/sessions/${s.id}/refresh`, 'POST', {}, { refresh_token: s.refresh_token }));
          await step(json(`${base}/v1/users/${userId}`, 'GET', i.auth));
          await step(json(`${base}/v1/users?query=soak${n % 50}&limit=5`, 'GET', i.auth));
          await step(json(`${base}/v1/sessions/${s.id}/revoke`, 'POST', i.auth));
        }
      }),
    );
    clearInterval(sampler);
    samples.push([(Date.now() - t0) / 1000, rssMiB(pid)]);
    const tail = samples.filter(([t]) => t >= opts.seconds / 5);
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const mt = mean(tail.map(([t]) => t));
    const mr = mean(tail.map(([, r]) => r));
    const slope = tail.reduce((a, [t, r]) => a + (t - mt) * (r - mr), 0) / (tail.reduce((a, [t]) => a + (t - mt) ** 2, 0) || 1);
    await sleep(0);
    return {
      seconds: opts.seconds,
      operations,
      failures,
      rssStartMiB: tail[0]?.[1] ?? samples[0]![1],
      rssEndMiB: samples.at(-1)![1],
      rssMaxMiB: Math.max(...samples.map(([, r]) => r)),
      slopeMiBPerMinute: slope * 60,
    };
  } finally {
    await h.stop(server.child);
  }
}
