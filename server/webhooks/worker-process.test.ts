import { systemContext } from '../http/actor';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { webhookMessages } from '../db/schema';
import { createInstance, defaultAccount } from '../instances/instances';
import { createRuntime, type Runtime } from '../runtime';
import { TestClock } from '../testing/harness';
import { exited } from '../testing/deployment';
import { processDatabase } from '../testing/processes';
import { answer, startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../testing/webhook-receiver';
import { createUser } from '../users/users';
import { DEFAULT_LEASE_MS } from './delivery';
import { createEndpoint } from './webhook-endpoints';
import { runWebhookWorkerOnce } from './worker';

/** Real worker processes (`npm run worker`) on a fresh PostgreSQL database. */
const pg = await processDatabase('worker-process');
const { dbUrl, encryptionKey: ENCRYPTION_KEY } = pg;

let runtime: Runtime;
let rx: WebhookReceiver;
let instance: { id: string; environment: 'test' | 'live' };
const clock = new TestClock();

const startWorker = () =>
  pg.spawn('server/main/worker.ts', { DATABASE_URL: dbUrl, ENCRYPTION_KEY, ALLOW_PRIVATE_WEBHOOK_TARGETS: '1', LOG_LEVEL: 'silent' });

async function waitFor(check: () => boolean | Promise<boolean>, ms: number, what: string) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!pg.available)('webhook worker processes (PostgreSQL)', () => {
  beforeAll(async () => {
    await pg.create();
    const config = loadConfig({ DATABASE_URL: dbUrl, ENCRYPTION_KEY, LOG_LEVEL: 'silent', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' });
    runtime = await createRuntime(config, { clock });
    rx = await startWebhookReceiver();
    const account = await defaultAccount(runtime.deps);
    const row = await createInstance(runtime.deps, { accountId: account.id, name: 'Workers', environment: 'test' });
    instance = { id: row.id, environment: 'test' };
  }, 60_000);

  afterAll(async () => {
    await pg.killAll();
    await rx?.close();
    await runtime?.close();
    await pg.drop();
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
    for (let i = 0; i < count; i++)
      await createUser(runtime.deps, instance.id, { email_address: [`pair${i}@example.com`] }, { audit: systemContext('test') });
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
