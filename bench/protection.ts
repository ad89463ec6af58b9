/**
 * The cost of attack protection on the sign-in path, measured by `npm run bench` (target
 * `protection`): POST /fapi/<instance>/v1/client/sign_ins with an identifier and its correct
 * password, each request from a new client and a new address (X-Forwarded-For under
 * TRUST_PROXY, so per-IP budgets never refuse), on two instances of one `npm run api`:
 *
 *   on   user lockout, breached-password checks and risk-based MFA enabled: every sign-in
 *        is checked for a lockout, and, being from a new device and network, is stepped up
 *        (pending session, session.pending, audit entry)
 *   off  all three disabled: every sign-in completes at the password
 *
 * Both are dominated by the argon2id verify; the figure is on ÷ off in requests/s (aim ≥ 0.90),
 * measured in interleaved rounds so background load hits both alike.
 */
import type { ChildProcess } from 'node:child_process';
import autocannon from 'autocannon';
import type { BenchServer, WebhookBenchHelpers } from './webhooks';

export interface ProtectionBenchResult {
  onPerSecond: number;
  offPerSecond: number;
  ratio: number;
  seconds: number;
  non2xx: number;
}

type Helpers = WebhookBenchHelpers & { stop(child: ChildProcess): Promise<void> };

async function json(url: string, method: string, headers: Record<string, string>, body?: unknown) {
  const res = await fetch(url, {
    method,
    headers: { ...headers, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await res.json().catch(() => null)) as Record<string, unknown> | null;
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(parsed)}`);
  return parsed!;
}

interface Target {
  instanceId: string;
  publishableKey: string;
  emails: string[];
}

async function prepareInstance(h: Helpers, base: string, name: string, on: boolean, users: number): Promise<Target> {
  const instance = (await h.cli(['instance', 'create', '--name', name, '--env', 'test', '--json'])) as {
    instance_id: string;
    publishable_key: string;
  };
  const key = (await h.cli(['keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--json'])) as { secret: string };
  const auth = { authorization: `Bearer ${key.secret}` };
  await json(`${base}/v1/attack_protection`, 'PATCH', auth, { user_lockout: { enabled: on }, breached_passwords: { enabled: on } });
  await json(`${base}/v1/risk_based_mfa`, 'PATCH', auth, { enabled: on });
  const emails: string[] = [];
  for (let i = 0; i < users; i++) {
    const email = `bench${i}@${name.toLowerCase()}.example.com`;
    await json(`${base}/v1/users`, 'POST', auth, { email_address: [email], password: 'a bench passphrase 42' });
    emails.push(email);
  }
  return { instanceId: instance.instance_id, publishableKey: instance.publishable_key, emails };
}

let nextAddress = 0;
/** A fresh address per request: 10.x.y.z, never twice in a run. */
const freshAddress = () => {
  const n = ++nextAddress;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
};

function hit(base: string, t: Target, seconds: number, connections: number) {
  let i = 0;
  return new Promise<autocannon.Result>((resolve, reject) => {
    autocannon(
      {
        url: `${base}/fapi/${t.instanceId}/v1/client/sign_ins`,
        connections,
        duration: seconds,
        requests: [
          {
            method: 'POST',
            setupRequest: (req) => ({
              ...req,
              headers: { 'content-type': 'application/json', 'x-publishable-key': t.publishableKey, 'x-forwarded-for': freshAddress() },
              body: JSON.stringify({ identifier: t.emails[i++ % t.emails.length], password: 'a bench passphrase 42' }),
            }),
          },
        ],
      },
      (err, result) => (err ? reject(err) : resolve(result)),
    ).on('response', (_client: unknown, status: number) => {
      // Refusals are counted as non-2xx; the first one's status says why (503: hashing queue full).
      if (status >= 300 && !loggedFailure) {
        loggedFailure = true;
        process.stderr.write(`[bench] protection: first refusal ${status}\n`);
      }
    });
  });
}
let loggedFailure = false;

export async function measureProtection(
  h: Helpers,
  opts: { port: number; seconds: number; rounds: number; connections: number; users: number },
): Promise<ProtectionBenchResult> {
  const server: BenchServer = h.startServer(
    'protection',
    'npm',
    ['run', '--silent', 'api'],
    opts.port,
    { TRUST_PROXY: '1', WEBHOOK_WORKER: '0', PASSWORD_HASH_QUEUE: '1000' },
    0,
  );
  try {
    await h.waitFor(server, '/healthz', 60_000);
    const base = `http://127.0.0.1:${opts.port}`;
    h.log(`protection: seeding ${opts.users} users on each of two instances`);
    const on = await prepareInstance(h, base, 'ProtectionOn', true, opts.users);
    const off = await prepareInstance(h, base, 'ProtectionOff', false, opts.users);
    // One sign-in each, checked: stepped up when on, complete when off.
    for (const [t, want] of [
      [on, 'needs_second_factor'],
      [off, 'complete'],
    ] as const) {
      const res = await json(
        `${base}/fapi/${t.instanceId}/v1/client/sign_ins`,
        'POST',
        { 'x-publishable-key': t.publishableKey, 'x-forwarded-for': freshAddress() },
        {
          identifier: t.emails[0],
          password: 'a bench passphrase 42',
        },
      );
      const status = (res.response as { status: string }).status;
      if (status !== want) throw new Error(`protection: a sign-in on ${t.instanceId} is ${status}, not ${want}`);
    }
    await hit(base, on, 2, opts.connections); // warm-up, discarded
    await hit(base, off, 2, opts.connections);
    const total = { on: { ok: 0, s: 0 }, off: { ok: 0, s: 0 }, non2xx: 0 };
    const slice = opts.seconds / opts.rounds;
    for (let r = 0; r < opts.rounds; r++) {
      for (const [name, t] of [
        ['on', on],
        ['off', off],
      ] as const) {
        const res = await hit(base, t, slice, opts.connections);
        total[name].ok += res['2xx'];
        total[name].s += res.duration;
        total.non2xx += res.non2xx;
      }
    }
    const onPerSecond = total.on.ok / total.on.s;
    const offPerSecond = total.off.ok / total.off.s;
    return { onPerSecond, offPerSecond, ratio: onPerSecond / offPerSecond, seconds: opts.seconds, non2xx: total.non2xx };
  } finally {
    await h.stop(server.child);
  }
}
