import { systemContext } from '../http/actor';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { createInstance, defaultAccount } from '../instances/instances';
import { createSecretKey } from '../keys/secret-keys';
import { createRuntime, type Runtime } from '../runtime';
import { processDatabase } from '../testing/processes';

/**
 * Two real API processes (`npm run api`) on one PostgreSQL database and one Redis (REDIS_URL,
 * or the local Redis).
 */
const pg = await processDatabase('shared-budget');
const { dbUrl, encryptionKey: ENCRYPTION_KEY } = pg;
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });

async function startApi(): Promise<string> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const env = {
    DATABASE_URL: dbUrl,
    REDIS_URL,
    ENCRYPTION_KEY,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_URL: base,
    LOG_LEVEL: 'silent',
    WEBHOOK_WORKER: '0',
  };
  const child = pg.spawn('server/main/api.ts', env);
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return base;
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('an API process did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
}

let runtime: Runtime;
let nodeA: string;
let nodeB: string;
let instance: { id: string; publishableKey: string };
let secret: string;

describe.skipIf(!pg.available)('two API processes sharing Redis', () => {
  beforeAll(async () => {
    await pg.create();
    runtime = await createRuntime(loadConfig({ DATABASE_URL: dbUrl, ENCRYPTION_KEY, LOG_LEVEL: 'silent' }));
    const account = await defaultAccount(runtime.deps);
    const row = await createInstance(runtime.deps, { accountId: account.id, name: 'Shared budget', environment: 'test' });
    instance = { id: row.id, publishableKey: row.publishableKey };
    secret = (await createSecretKey(runtime.deps, { instanceId: row.id, scopes: '*' }, systemContext('test'))).secret;
    [nodeA, nodeB] = await Promise.all([startApi(), startApi()]);
  }, 120_000);

  afterAll(async () => {
    await pg.killAll();
    await runtime?.close();
    await pg.drop();
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
