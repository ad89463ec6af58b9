import { systemContext } from '../http/actor';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { webhookMessages } from '../db/schema';
import { createInstance, defaultAccount } from '../instances/instances';
import { createRuntime, type Runtime } from '../runtime';
import { TestClock } from '../testing/harness';
import { answer, startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../testing/webhook-receiver';
import { createUser } from '../users/users';
import { DEFAULT_LEASE_MS } from './delivery';
import { createEndpoint } from './endpoints';
import { runWebhookWorkerOnce } from './worker';

/**
 * Real worker processes (`npm run worker`) on a fresh PostgreSQL database: the embedded
 * store is single-process, so these always use PostgreSQL (DATABASE_URL, or the local
 * server CI and the dev machines run).
 */
const ADMIN_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ENCRYPTION_KEY = randomBytes(32).toString('hex');
const DB_NAME = `latchkey_worker_${randomBytes(6).toString('hex')}`;
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
if (!available) process.stderr.write(`worker-process tests skipped: no PostgreSQL at ${ADMIN_URL}\n`);

let runtime: Runtime;
let rx: WebhookReceiver;
let instance: { id: string; environment: 'test' | 'live' };
const clock = new TestClock();
const children: ChildProcess[] = [];

function startWorker(): ChildProcess {
  // node --import tsx rather than the tsx CLI: the CLI runs the script in a grandchild a SIGKILL would not reach.
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main/worker.ts'], {
    env: { ...process.env, DATABASE_URL: dbUrl, ENCRYPTION_KEY, ALLOW_PRIVATE_WEBHOOK_TARGETS: '1', LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve())));

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!available)('webhook worker processes (PostgreSQL)', () => {
  beforeAll(async () => {
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`create database ${DB_NAME}`);
    await admin.end();
    const config = loadConfig({ DATABASE_URL: dbUrl, ENCRYPTION_KEY, LOG_LEVEL: 'silent', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' });
    runtime = await createRuntime(config, { clock });
    rx = await startWebhookReceiver();
    const account = await defaultAccount(runtime.deps);
    const row = await createInstance(runtime.deps, { accountId: account.id, name: 'Workers', environment: 'test' });
    instance = { id: row.id, environment: 'test' };
  }, 60_000);

  afterAll(async () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    await Promise.all(children.map(exited));
    await rx?.close();
    await runtime?.close();
    const admin = postgres(ADMIN_URL, { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${DB_NAME} with (force)`);
    await admin.end();
  });

  it('a worker killed between claim and acknowledgement leaves the message to be delivered again, same webhook-id', async () => {
    const ep = await createEndpoint(runtime.deps, instance, { url: `${rx.url}/kill`, event_types: ['user.created'] }, { actor: 'test' });
    // The first delivery is held open: the worker has claimed and sent, and waits for the answer.
    rx.reply = () => {};
    const worker = startWorker();
    const first = rx.next();
    await createUser(runtime.deps, instance.id, { email_address: ['killed@example.com'] }, { audit: systemContext('test') });
    const held = await first;
    verifyDelivery(ep.secret, held);
    worker.kill('SIGKILL');
    await exited(worker);

    const [msg] = await runtime.deps.db.select().from(webhookMessages).where(eq(webhookMessages.endpointId, ep.id));
    expect(msg).toMatchObject({ status: 'pending', attempts: 0 });
    expect(msg!.lockedUntil).toBeGreaterThan(Date.now());

    // Another worker takes it over once the dead one's lease runs out.
    rx.reply = answer(200);
    expect(await runWebhookWorkerOnce(runtime.deps)).toBe(0);
    expect(msg!.lockedUntil! - Date.now()).toBeLessThanOrEqual(DEFAULT_LEASE_MS);
    clock.advance(msg!.lockedUntil! - clock.now() + 1);
    expect(await runWebhookWorkerOnce(runtime.deps)).toBe(1);
    const again = rx.received.at(-1)!;
    expect(again.headers['webhook-id']).toBe(held.headers['webhook-id']);
    expect(again.body).toBe(held.body);
    verifyDelivery(ep.secret, again);
    const [done] = await runtime.deps.db.select().from(webhookMessages).where(eq(webhookMessages.id, msg!.id));
    expect(done).toMatchObject({ status: 'succeeded', attempts: 1 });
  }, 60_000);

  it('two worker processes share the queue without delivering a message twice', async () => {
    await createEndpoint(runtime.deps, instance, { url: `${rx.url}/pair`, event_types: ['user.created'] }, { actor: 'test' });
    // Slow answers keep both workers busy at once.
    rx.reply = (_req, res) => setTimeout(() => answer(200)(_req, res), 20);
    // The workers run on the wall clock: bring the test clock back to it, so the new messages are due now.
    clock.advance(Date.now() - clock.now());
    const workers = [startWorker(), startWorker()];
    const count = 40;
    for (let i = 0; i < count; i++) await createUser(runtime.deps, instance.id, { email_address: [`pair${i}@example.com`] }, { audit: systemContext('test') });
    const pair = () => rx.received.filter((r) => r.path === '/pair');
    await waitFor(() => pair().length >= count, 30_000, `${count} deliveries`);
    await new Promise((r) => setTimeout(r, 500));
    const ids = pair().map((r) => String(r.headers['webhook-id']));
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    // A graceful stop: SIGTERM lets deliveries in flight finish, then the process exits 0.
    for (const w of workers) w.kill('SIGTERM');
    await Promise.all(workers.map(exited));
    expect(workers.map((w) => w.exitCode)).toEqual([0, 0]);
  }, 60_000);
});
