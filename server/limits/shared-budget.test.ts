import { systemContext } from '../http/actor';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createInstance, defaultAccount } from '../instances/instances';
import { createSecretKey } from '../keys/secret-keys';
import { createRuntime, type Runtime } from '../runtime';

/**
 * Two real API processes (`npm run api`) on one PostgreSQL database and one Redis: the
 * embedded store is single-process, so this always uses PostgreSQL (DATABASE_URL, or the
 * local server CI and the dev machines run) and REDIS_URL (or the local Redis).
 */
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const ENCRYPTION_KEY = randomBytes(32).toString('hex');
const DB_NAME = `latchkey_limits_${randomBytes(6).toString('hex')}`;
const dbUrl = (() => {
  const u = new URL(ADMIN_URL);
  u.pathname = `/${DB_NAME}`;
  return u.toString();
})();

async function postgresReachable(): Promise<boolean> {
  const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {}, connect_timeout: 3 });
  try {
    await admin`select 1`;
    return true;
  } catch {
    return false;
  } finally {
    await admin.end();
  }
}
const available = await postgresReachable();
if (!available) process.stderr.write(`shared-budget tests skipped: no PostgreSQL at ${ADMIN_URL}\n`);

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

const children: ChildProcess[] = [];
async function startApi(): Promise<string> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // node --import tsx rather than the tsx CLI: the CLI runs the script in a grandchild a kill would not reach.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main/api.ts'], {
    env: { ...process.env, DATABASE_URL: dbUrl, REDIS_URL, ENCRYPTION_KEY, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, LOG_LEVEL: 'silent', WEBHOOK_WORKER: '0' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then((r) => r.ok, () => false);
    if (up) return base;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('an API process did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

let runtime: Runtime;
let nodeA: string;
let nodeB: string;
let instance: { id: string; publishableKey: string };
let secret: string;

describe.skipIf(!available)('two API processes sharing Redis', () => {
  beforeAll(async () => {
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${DB_NAME}`);
    await admin.end();
    runtime = await createRuntime(loadConfig({ DATABASE_URL: dbUrl, ENCRYPTION_KEY, LOG_LEVEL: 'silent' }));
    const account = await defaultAccount(runtime.deps);
    const row = await createInstance(runtime.deps, { accountId: account.id, name: 'Shared budget', environment: 'test' });
    instance = { id: row.id, publishableKey: row.publishableKey };
    secret = (await createSecretKey(runtime.deps, { instanceId: row.id, scopes: '*' }, systemContext('test'))).secret;
    [nodeA, nodeB] = await Promise.all([startApi(), startApi()]);
  }, 120_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await runtime?.close();
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${DB_NAME} with (force)`);
    await admin.end();
  });

  const bapi = (base: string, method = 'GET', path = '/v1/users', body?: unknown) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${secret}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  it('a key’s budget, tightened on one node, is one budget across both', async () => {
    const patched = await bapi(nodeA, 'PATCH', '/v1/rate_limit_policy', { bapi_per_key: 4 });
    expect(patched.status).toBe(200);
    // The PATCH spent the first hit; three more pass, alternating nodes, then both refuse.
    const statuses = [];
    for (const base of [nodeB, nodeA, nodeB, nodeA, nodeB]) statuses.push((await bapi(base)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
  }, 30_000);

  it('a client IP’s sign-in budget is one budget across both', async () => {
    const signIn = (base: string) =>
      // As a native app: no Origin to match against the instance's fapi_url.
      fetch(`${base}/fapi/${instance.id}/v1/client/sign_ins?_is_native=1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-publishable-key': instance.publishableKey },
        body: JSON.stringify({ identifier: 'nobody@example.com' }),
      });
    const statuses = [];
    for (const base of [nodeA, nodeB, nodeA, nodeB, nodeA, nodeB]) statuses.push((await signIn(base)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
  }, 30_000);
});
