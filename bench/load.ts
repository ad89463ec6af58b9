import http from 'node:http';
import autocannon from 'autocannon';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The load generator, run once per bench by bench/run.ts as
 * `taskset -c 1 node --import tsx bench/load.ts '<plan json>'`, so it never shares a core
 * with the server under test. It warms every row up, then measures the rows round-robin
 * (round 1: every row, round 2: every row, …) so that background load on the machine is
 * spread evenly over the targets instead of landing on whichever ran at the wrong time.
 * Prints one JSON line: a summary per row.
 *
 * Row kinds:
 *   get      autocannon GETs one URL.
 *   post     autocannon POSTs one JSON body to one URL (POST /v1/api_keys/verify).
 *   refresh  POST {fapi}/v1/sessions/<sid>/refresh: every request refreshes a different
 *            session exactly once with its current refresh token (tokens rotate on use and a
 *            reused one revokes the session), taken from a pool of sessions minted through
 *            BAPI POST /v1/sessions before each hit, outside the measured time. The pool is
 *            sized from the fastest refresh rate seen so far; should it still run dry, the
 *            request goes out with a token that cannot match, is answered 4xx (not counted
 *            as a success) and is reported as `exhausted`.
 *   verify   POST /v1/sessions/verify with one session jwt minted just before each hit
 *            (jwts live 60 s; a hit is far shorter).
 *   post     autocannon POSTs one fixed body to one URL (client_credentials at a token endpoint).
 *   exchange POST {fapi}/oauth2/token, authorization_code: every request exchanges a different
 *            code once, from a pool minted before each hit, outside the measured time, by a
 *            signed-in browser (its __client cookie) calling /oauth2/authorize on the minter.
 *   ceiling  asks bench/ceiling-jose.ts (pinned to the servers' core) to sign or verify for
 *            the same number of seconds; ops/s stands in for req/s.
 */
interface Mint {
  url: string;
  headers: Record<string, string>;
  userIds: string[];
}
export type Row = (
  | { id: string; kind: 'get'; url: string; headers: Record<string, string> }
  | { id: string; kind: 'post'; url: string; headers: Record<string, string>; body: string }
  | { id: string; kind: 'refresh'; fapiUrl: string; mint: Mint }
  | { id: string; kind: 'verify'; url: string; headers: Record<string, string>; mint: Mint }
  | { id: string; kind: 'ceiling'; url: string }
  | { id: string; kind: 'exchange'; tokenUrl: string; headers: Record<string, string>; redirectUri: string; mintCode: CodeMint }
) & {
  /** The server's process group (it was started detached): its CPU time per request is measured from /proc. */
  pgid?: number;
};
/** A browser signed in on the minter: GET `authorizeUrl` with `cookie` answers a redirect carrying a fresh code. */
interface CodeMint {
  authorizeUrl: string;
  cookie: string;
}
interface Plan {
  rows: Row[];
  connections: number;
  warmupSeconds: number;
  rounds: number;
  secondsPerRound: number;
  /** refreshes/s assumed for sizing the pool before any refresh has been measured */
  refreshGuess: number;
}

const plan = JSON.parse(process.argv[2] ?? '{}') as Plan;
const log = (msg: string) => process.stderr.write(`[load] ${msg}\n`);

function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return NaN;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

// ---------------------------------------------------------------- server CPU

const CLOCK_TICK_MS = 1000 / 100; // USER_HZ: 100 on Linux

/**
 * CPU time (user + system, ms) of every process in a process group so far, all their threads
 * (libuv's pool included: WebCrypto signs there), from /proc; null where there is no /proc.
 */
function groupCpuMs(pgid: number | undefined): number | null {
  if (pgid === undefined) return null;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return null;
  }
  let ticks = 0;
  for (const pid of pids) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // after "pid (comm) ": state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime stime
      if (Number(fields[2]) !== pgid) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      /* gone meanwhile */
    }
  }
  return ticks * CLOCK_TICK_MS;
}

// ---------------------------------------------------------------- minting sessions

interface Minted {
  id: string;
  jwt: string;
  refresh_token: string;
}
let mintedSoFar = 0;
async function mintOne(mint: Mint): Promise<Minted> {
  const userId = mint.userIds[mintedSoFar++ % mint.userIds.length]!;
  const res = await fetch(mint.url, {
    method: 'POST',
    headers: { ...mint.headers, 'content-type': 'application/json' },
    body: JSON.stringify({ user_id: userId }),
    signal: AbortSignal.timeout(30_000),
  });
  const body = (await res.json()) as Partial<Minted>;
  if (res.status !== 200 || !body.id || !body.jwt || !body.refresh_token) {
    throw new Error(`POST ${mint.url} → ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  return body as Minted;
}

// ---------------------------------------------------------------- minting authorization codes

async function mintCode(m: CodeMint): Promise<string> {
  const res = await fetch(m.authorizeUrl, { headers: { cookie: m.cookie }, redirect: 'manual', signal: AbortSignal.timeout(30_000) });
  const code = new URL(res.headers.get('location') ?? 'x:/').searchParams.get('code');
  if (res.status !== 302 || !code) throw new Error(`GET ${m.authorizeUrl} → ${res.status} ${res.headers.get('location')}`);
  return code;
}

let mintSeconds = 0;

/** What a hit hands out, one per request, minted before it outside the measured time; `next` is the first unused one. */
class Pool<T> {
  readonly items: (T | undefined)[] = [];
  next = 0;
  /** The fastest rate (2xx/s) a hit has used them at, for sizing the next top-up. */
  fastest = 0;
  constructor(private readonly what: string) {}

  /** Mints, 16 at a time, enough for `seconds` at the fastest rate seen so far (else the plan's guess). */
  async topUp(seconds: number, mintOne: () => Promise<T>) {
    const want = Math.ceil((this.fastest || plan.refreshGuess) * seconds * 1.5) + plan.connections * 4 + 100;
    const missing = want - (this.items.length - this.next);
    if (missing <= 0) return;
    const started = performance.now();
    let left = missing;
    const worker = async () => {
      while (left > 0) {
        left--;
        this.items.push(await mintOne());
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const took = (performance.now() - started) / 1000;
    mintSeconds += took;
    log(
      `minted ${missing} ${this.what} in ${took.toFixed(1)}s (${(missing / took).toFixed(0)}/s); pool ${this.items.length - this.next} unused`,
    );
  }

  /** The next unused one, let go of here; undefined once the pool has run dry. */
  take(): T | undefined {
    const item = this.items[this.next];
    if (item !== undefined) this.items[this.next++] = undefined;
    return item;
  }

  used(r: autocannon.Result) {
    this.fastest = Math.max(this.fastest, r['2xx'] / r.duration);
  }
}

const sessions = new Pool<{ sid: string; token: string }>('sessions');

/** Mints enough sessions for `seconds` of this refresh row. */
const topUpSessions = (row: Extract<Row, { kind: 'refresh' }>, seconds: number) =>
  sessions.topUp(seconds, async () => {
    const s = await mintOne(row.mint);
    return { sid: s.id, token: s.refresh_token };
  });

/**
 * The next pooled session's refresh under `fapi` (a URL or its path) and its body; once the
 * pool ran dry, a token that cannot match (answered 4xx, counted as `exhausted`).
 */
function nextRefresh(fapi: string) {
  const pair = sessions.take();
  const { sid, token } = pair ?? { sid: 'sess_exhausted', token: 'rt_pool_exhausted_pool_exhausted' };
  return { url: `${fapi}/v1/sessions/${sid}/refresh`, body: `{"refresh_token":"${token}"}`, exhausted: !pair };
}
const codes = new Pool<string>('authorization codes');

// ---------------------------------------------------------------- hitting

interface Hit {
  ok: number;
  seconds: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  exhausted: number;
}

/** The server CPU (ms) the last cannon() of each process group took, read around the load alone (minting left out). */
const lastCpuMs = new Map<number, number>();

function cannon(opts: autocannon.Options, samples: number[] | null, pgid?: number) {
  const cpuBefore = groupCpuMs(pgid);
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(opts, (err, result) => {
      const cpuAfter = groupCpuMs(pgid);
      if (pgid !== undefined && cpuBefore !== null && cpuAfter !== null) lastCpuMs.set(pgid, cpuAfter - cpuBefore);
      return err ? reject(err) : resolve(result);
    });
    // autocannon's histogram keeps whole milliseconds: keep the exact 2xx times for p50/p99.
    if (samples) {
      instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
        if (statusCode >= 200 && statusCode < 300) samples.push(responseTime);
      });
    }
  });
}

const fromResult = (r: autocannon.Result, exhausted = 0): Hit => ({
  ok: r['2xx'],
  seconds: r.duration,
  non2xx: r.non2xx,
  errors: r.errors,
  timeouts: r.timeouts,
  exhausted,
});

async function hit(row: Row, seconds: number, samples: number[] | null): Promise<Hit> {
  const base = { connections: plan.connections, duration: seconds };
  switch (row.kind) {
    case 'get':
      return fromResult(await cannon({ ...base, url: row.url, headers: row.headers }, samples, row.pgid));
    case 'verify': {
      const { jwt } = await mintOne(row.mint);
      const body = JSON.stringify({ token: jwt });
      return fromResult(
        await cannon(
          { ...base, url: row.url, method: 'POST', headers: { ...row.headers, 'content-type': 'application/json' }, body },
          samples,
          row.pgid,
        ),
      );
    }
    case 'refresh': {
      await topUpSessions(row, seconds);
      const prefix = new URL(row.fapiUrl).pathname;
      let exhausted = 0;
      const setupRequest = (req: autocannon.Request) => {
        const next = nextRefresh(prefix);
        if (next.exhausted) exhausted++;
        return { ...req, path: next.url, body: next.body };
      };
      const r = await cannon(
        {
          ...base,
          url: row.fapiUrl,
          headers: { 'content-type': 'application/json' },
          requests: [{ method: 'POST', setupRequest }],
        },
        samples,
        row.pgid,
      );
      sessions.used(r);
      return fromResult(r, exhausted);
    }
    case 'post':
      return fromResult(await cannon({ ...base, url: row.url, method: 'POST', headers: row.headers, body: row.body }, samples, row.pgid));
    case 'exchange': {
      await codes.topUp(seconds, () => mintCode(row.mintCode));
      let exhausted = 0;
      const redirect = encodeURIComponent(row.redirectUri);
      const setupRequest = (req: autocannon.Request) => {
        const code = codes.take();
        if (!code) exhausted++;
        return { ...req, body: `grant_type=authorization_code&redirect_uri=${redirect}&code=${code ?? 'oac_pool_exhausted'}` };
      };
      const r = await cannon(
        { ...base, url: row.tokenUrl, headers: row.headers, requests: [{ method: 'POST', setupRequest }] },
        samples,
        row.pgid,
      );
      codes.used(r);
      return fromResult(r, exhausted);
    }
    case 'ceiling': {
      const res = await fetch(`${row.url}&seconds=${seconds}&concurrency=${plan.connections}`, {
        method: 'POST',
        signal: AbortSignal.timeout((seconds + 30) * 1000),
      });
      const body = (await res.json()) as { ops?: number; seconds?: number; error?: string };
      if (res.status !== 200 || body.ops === undefined || body.seconds === undefined)
        throw new Error(`${row.url} → ${res.status} ${JSON.stringify(body)}`);
      return { ok: body.ops, seconds: body.seconds, non2xx: 0, errors: 0, timeouts: 0, exhausted: 0 };
    }
  }
}

interface PacedRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
}

/**
 * Open-loop load: one POST every 1/rate s, whatever the answers' pace, over keep-alive
 * connections (as many as needed). autocannon's rate limit is no use here: each connection
 * sends its second's quota back to back, so half the rate is saturation half of the time.
 */
async function paced(rate: number, seconds: number, next: () => PacedRequest) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 256 });
  const samples: number[] = [];
  let ok = 0;
  let non2xx = 0;
  let inFlight = 0;
  const send = () => {
    const req = next();
    const started = performance.now();
    inFlight++;
    const r = http.request(
      req.url,
      { method: 'POST', agent, headers: { ...req.headers, 'content-length': Buffer.byteLength(req.body) } },
      (res) => {
        res.resume();
        res.on('end', () => {
          inFlight--;
          if (res.statusCode! >= 200 && res.statusCode! < 300) {
            ok++;
            samples.push(performance.now() - started);
          } else non2xx++;
        });
      },
    );
    r.on('error', () => {
      inFlight--;
      non2xx++;
    });
    r.end(req.body);
  };
  const start = performance.now();
  let sent = 0;
  while (performance.now() - start < seconds * 1000) {
    const due = Math.floor(((performance.now() - start) / 1000) * rate);
    while (sent < due) {
      send();
      sent++;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, 5));
  agent.destroy();
  return { ok, non2xx, samples };
}

const acc = new Map(
  plan.rows.map((r) => [
    r.id,
    {
      ok: 0,
      seconds: 0,
      non2xx: 0,
      errors: 0,
      timeouts: 0,
      exhausted: 0,
      rounds: [] as number[],
      samples: [] as number[],
      cpuMs: 0,
      cpuOk: 0,
    },
  ]),
);

for (const row of plan.rows) await hit(row, plan.warmupSeconds, null);
for (let round = 0; round < plan.rounds; round++) {
  for (const row of plan.rows) {
    const a = acc.get(row.id)!;
    if (row.pgid !== undefined) lastCpuMs.delete(row.pgid);
    const r = await hit(row, plan.secondsPerRound, row.kind === 'ceiling' ? null : a.samples);
    const cpu = row.pgid === undefined ? undefined : lastCpuMs.get(row.pgid);
    if (cpu === undefined) a.cpuOk = -Infinity;
    else {
      a.cpuMs += cpu;
      a.cpuOk += r.ok;
    }
    a.ok += r.ok;
    a.seconds += r.seconds;
    a.non2xx += r.non2xx;
    a.errors += r.errors;
    a.timeouts += r.timeouts;
    a.exhausted += r.exhausted;
    a.rounds.push(r.ok / r.seconds);
  }
}
// The session hot paths again at half the rate they saturated at: the latency a server
// sized with 2× headroom shows (the p99 aim is under 10 ms there).
const halfRate = new Map<string, { rate: number; p50: number; p99: number; ok: number; non2xx: number }>();
for (const row of plan.rows) {
  if (row.kind !== 'refresh' && row.kind !== 'verify') continue;
  const a = acc.get(row.id)!;
  const rate = Math.max(1, Math.floor(a.ok / a.seconds / 2));
  const seconds = plan.secondsPerRound * 2;
  let next: () => PacedRequest;
  if (row.kind === 'verify') {
    const body = JSON.stringify({ token: (await mintOne(row.mint)).jwt });
    next = () => ({ url: row.url, headers: { ...row.headers, 'content-type': 'application/json' }, body });
  } else {
    await topUpSessions(row, seconds);
    next = () => {
      const { url, body } = nextRefresh(row.fapiUrl);
      return { url, headers: { 'content-type': 'application/json' }, body };
    };
  }
  const r = await paced(rate, seconds, next);
  const sorted = Float64Array.from(r.samples).sort();
  halfRate.set(row.id, { rate, p50: percentile(sorted, 50), p99: percentile(sorted, 99), ok: r.ok, non2xx: r.non2xx });
}

if (sessions.items.length)
  log(
    `refresh pool: ${sessions.next} used of ${sessions.items.length} minted (${mintSeconds.toFixed(1)}s minting, outside the measurements)`,
  );

const out = plan.rows.map((row) => {
  const a = acc.get(row.id)!;
  const sorted = Float64Array.from(a.samples).sort();
  return {
    id: row.id,
    requestsPerSecond: a.ok / a.seconds,
    // CPU time of the server's processes (all threads) per successful request, over the measured rounds
    cpuMicrosPerRequest: a.cpuOk > 0 ? (a.cpuMs * 1000) / a.cpuOk : null,
    roundsRps: a.rounds,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    ok: a.ok,
    non2xx: a.non2xx,
    errors: a.errors,
    timeouts: a.timeouts,
    exhausted: a.exhausted,
    seconds: a.seconds,
    halfRate: halfRate.get(row.id) ?? null,
  };
});
process.stdout.write(`${JSON.stringify(out)}\n`);
process.exit(0);
