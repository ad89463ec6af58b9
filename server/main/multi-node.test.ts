import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import type { ChildProcess } from 'node:child_process';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { systemContext } from '../http/actor';
import { createInstance, defaultAccount } from '../instances/instances';
import { createSecretKey, revokeSecretKey } from '../keys/secret-keys';
import { createRuntime, type Runtime } from '../runtime';
import { exited } from '../testing/deployment';
import { processDatabase } from '../testing/processes';
import { answer, startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver';
import { createEndpoint } from '../webhooks/webhook-endpoints';

/**
 * The multi-node scenario (issue 24): two API nodes and one webhook worker, real processes
 * on one fresh PostgreSQL database and one Redis (DATABASE_URL / REDIS_URL, or the local
 * servers). Node A is itself a cluster of two HTTP workers (WEB_CONCURRENCY=2). Both nodes
 * start at once on the empty database, so their migrations race.
 */
const pg = await processDatabase('multi-node');
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

const common = {
  DATABASE_URL: dbUrl,
  REDIS_URL,
  ENCRYPTION_KEY,
  LOG_LEVEL: 'silent',
  ALLOW_PRIVATE_WEBHOOK_TARGETS: '1',
  SHUTDOWN_TIMEOUT: '5',
  BAPI_RATE_LIMIT: '100000',
};

async function startApi(env: Record<string, string>): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const child = pg.spawn('server/main/api.ts', { ...common, PORT: String(port), HOST: '127.0.0.1', PUBLIC_URL: base, ...env });
  const deadline = Date.now() + 90_000;
  for (;;) {
    const up = await fetch(`${base}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return { base, child };
    if (Date.now() > deadline || child.exitCode !== null) throw new Error(`an API process did not start (exit ${child.exitCode})`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const journalEntries = (JSON.parse(readFileSync('drizzle/meta/_journal.json', 'utf8')) as { entries: unknown[] }).entries.length;

let runtime: Runtime;
let A: { base: string; child: ChildProcess };
let B: { base: string; child: ChildProcess };
let rx: WebhookReceiver;
let instance: { id: string };
let secret: string;

describe.skipIf(!pg.available)('two API nodes and a worker on PostgreSQL and Redis', () => {
  beforeAll(async () => {
    await pg.create();
    // Both nodes migrate the empty database at once (one of them through its cluster primary).
    [A, B] = await Promise.all([
      startApi({ WEB_CONCURRENCY: '2', WEBHOOK_WORKER: '0' }),
      startApi({ WEB_CONCURRENCY: '1', WEBHOOK_WORKER: '1' }),
    ]);
    pg.spawn('server/main/worker.ts', common);
    runtime = await createRuntime(loadConfig(common));
    await runtime.deps.cacheInvalidation.ready;
    const account = await defaultAccount(runtime.deps);
    const row = await createInstance(runtime.deps, { accountId: account.id, name: 'Multi-node', environment: 'test' });
    instance = { id: row.id };
    secret = (await createSecretKey(runtime.deps, { instanceId: row.id, scopes: '*' }, systemContext('test'))).secret;
    rx = await startWebhookReceiver();
  }, 180_000);

  afterAll(async () => {
    await pg.killAll();
    await rx?.close();
    await runtime?.close();
    await pg.drop();
  });

  const bapi = (base: string, method = 'GET', path = '/v1/users', body?: unknown, key = secret) =>
    fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });

  it('migrations from two nodes at once ran once each; node A runs two HTTP workers under one primary', async () => {
    const sql = postgres(dbUrl, { max: 1, onnotice: () => {} });
    try {
      const [{ n }] = (await sql`select count(*)::int as n from drizzle.__drizzle_migrations`) as unknown as [{ n: number }];
      expect(n).toBe(journalEntries);
    } finally {
      await sql.end();
    }
    // Its HTTP workers run the same script (other children, such as tsx's esbuild service, do not).
    const children = execFileSync('pgrep', ['-P', String(A.child.pid), '-f', 'server/main/api.ts'], { encoding: 'utf8' })
      .trim()
      .split('\n');
    expect(children).toHaveLength(2);
  });

  it('a policy change on one node is seen by the other within a second (not after its cache TTL)', async () => {
    // Warm both nodes' policy caches.
    for (const n of [A, B]) expect((await bapi(n.base, 'GET', '/v1/rate_limit_policy')).status).toBe(200);
    const patched = await bapi(A.base, 'PATCH', '/v1/rate_limit_policy', { bapi_per_key: 500 });
    expect(patched.status).toBe(200);
    const limitOn = async (base: string) =>
      ((await (await bapi(base, 'GET', '/v1/rate_limit_policy')).json()) as { budgets: { bapi_per_key: { limit: number } } }).budgets
        .bapi_per_key.limit;
    await expect.poll(() => limitOn(B.base), { timeout: 1000, interval: 50 }).toBe(500);
  });

  // The invalidation arrives in milliseconds; the bound leaves room for a loaded CI machine.
  it('a signing-key rotation on one node is published by the other at once (within 5 s)', async () => {
    const kids = async (base: string) =>
      ((await (await bapi(base, 'GET', '/v1/jwks')).json()) as { keys: { kid: string }[] }).keys.map((k) => k.kid).sort();
    const before = await kids(B.base);
    expect(await kids(A.base)).toEqual(before);
    expect((await bapi(A.base, 'POST', '/v1/jwks/rotate', {})).status).toBe(200);
    const after = await kids(A.base);
    expect(after).not.toEqual(before);
    await expect.poll(() => kids(B.base), { timeout: 5000, interval: 50 }).toEqual(after);
  });

  it('a revoked secret key is refused by both nodes within a second', async () => {
    const other = await createSecretKey(runtime.deps, { instanceId: instance.id, scopes: '*' }, systemContext('test'));
    for (const n of [A, B, A, B]) expect((await bapi(n.base, 'GET', '/v1/users', undefined, other.secret)).status).toBe(200);
    const revokedAt = Date.now();
    await revokeSecretKey(runtime.deps, other.id, systemContext('test'));
    for (const n of [A, B]) {
      await expect
        .poll(async () => (await bapi(n.base, 'GET', '/v1/users', undefined, other.secret)).status, { timeout: 1000, interval: 20 })
        .toBe(401);
    }
    expect(Date.now() - revokedAt).toBeLessThan(1500);
  });

  it('webhooks with two workers (node B and the worker process): every event delivered, none twice', async () => {
    rx.reply = (req, res) => setTimeout(() => answer(200)(req, res), 10);
    await createEndpoint(
      runtime.deps,
      { id: instance.id, environment: 'test' },
      { url: `${rx.url}/multi`, event_types: ['user.created'] },
      { actor: 'test' },
    );
    const count = 30;
    for (let i = 0; i < count; i++) {
      const res = await bapi(i % 2 ? A.base : B.base, 'POST', '/v1/users', { email_address: [`multi${i}@example.com`] });
      expect(res.status).toBe(200);
    }
    const got = () => rx.received.filter((r) => r.path === '/multi');
    await expect.poll(() => got().length, { timeout: 30_000, interval: 100 }).toBeGreaterThanOrEqual(count);
    await new Promise((r) => setTimeout(r, 500));
    const ids = got().map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
  }, 60_000);

  it('one rate-limit budget across the nodes', async () => {
    const key = await createSecretKey(runtime.deps, { instanceId: instance.id, scopes: '*' }, systemContext('test'));
    expect((await bapi(A.base, 'PATCH', '/v1/rate_limit_policy', { bapi_per_key: 4 }, key.secret)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    const statuses = [];
    for (const n of [B, A, B, A, B]) statuses.push((await bapi(n.base, 'GET', '/v1/users', undefined, key.secret)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    // Back to a roomy budget (with a key of its own: this one's budget is spent).
    const restorer = await createSecretKey(runtime.deps, { instanceId: instance.id, scopes: '*' }, systemContext('test'));
    expect((await bapi(A.base, 'PATCH', '/v1/rate_limit_policy', { bapi_per_key: 100000 }, restorer.secret)).status).toBe(200);
    await expect.poll(async () => (await bapi(B.base)).status, { timeout: 1000, interval: 50 }).toBe(200);
  });

  it('SIGTERM drains a node: its primary and workers exit 0 within the bound, the other node keeps serving', async () => {
    const t0 = Date.now();
    A.child.kill('SIGTERM');
    await exited(A.child);
    expect(A.child.exitCode).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect((await fetch(`${A.base}/healthz`).catch(() => null))?.status).toBeUndefined();
    expect((await bapi(B.base)).status).toBe(200);
  }, 30_000);
});
