import { isIP } from 'node:net';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { auditLogs, webhookMessages } from '../db/schema';
import { sharedHarness } from '../testing/harness';
import { expectError } from '../testing/expect';
import { answer, startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../testing/webhook-receiver';
import { instanceMetrics } from '../analytics/metrics';
import { claimDueMessages, releaseClaims } from './delivery';
import { MESSAGE_RETENTION_MS, purgeWebhookMessages } from './messages';
import { RETRY_SCHEDULE_MS } from './policy';
import { runWebhookWorkerOnce } from './worker';
import { raceTest } from '../testing/races';

/** Names the tests point anywhere (the SSRF guard resolves through deps.dns). */
const dnsTable: Record<string, string> = { 'evil.test': '127.0.0.1', 'public.test': '93.184.216.34' };
const h = sharedHarness({
  env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' },
  dns: async (host) => (dnsTable[host] ? [{ address: dnsTable[host]!, family: 4 }] : []),
});
let rx: WebhookReceiver;
let key: string;
let instanceId: string;
beforeAll(async () => {
  rx = await startWebhookReceiver();
  ({ secret: key, instanceId } = await h.createInstance());
});
afterAll(() => rx.close());
beforeEach(() => {
  rx.reply = answer(200, 'ok');
  rx.received.length = 0;
});

const deps = () => h.runtime.deps;
const work = () => runWebhookWorkerOnce(deps());
let seq = 0;
const createUser = (k = key) => h.call('POST', '/v1/users', { key: k, body: { email_address: [`w${++seq}.${Date.now()}@example.com`] } });

async function createEndpoint(body: Record<string, unknown> = {}, k = key) {
  const res = await h.call('POST', '/v1/webhook_endpoints', { key: k, body: { url: `${rx.url}/hook`, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { id: string; secret: string; url: string };
}
const deliveries = async (endpointId: string, k = key) => {
  const res = await h.call('GET', `/v1/webhook_endpoints/${endpointId}/deliveries`, { key: k });
  expect(res.status).toBe(200);
  return res.body.data as any[]; // eslint-disable-line @typescript-eslint/no-explicit-any
};
const disable = (id: string) => h.call('PATCH', `/v1/webhook_endpoints/${id}`, { key, body: { disabled: true } });

describe('webhook endpoints', () => {
  it('creates an endpoint with a whsec_ secret shown at creation and by the reveal route only', async () => {
    const created = await createEndpoint({ description: 'billing', event_types: ['user.created', 'user.deleted', 'user.created'] });
    expect(created).toMatchObject({
      object: 'webhook_endpoint',
      description: 'billing',
      event_types: ['user.created', 'user.deleted'],
      disabled: false,
    });
    expect(created.id).toMatch(/^whep_[0-9A-Z]{26}$/);
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const got = await h.call('GET', `/v1/webhook_endpoints/${created.id}`, { key });
    expect(got.body).not.toHaveProperty('secret');
    const listed = await h.call('GET', '/v1/webhook_endpoints', { key });
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(created.id);
    expect(JSON.stringify(listed.body)).not.toContain(created.secret);
    const revealed = await h.call('GET', `/v1/webhook_endpoints/${created.id}/secret`, { key });
    expect(revealed.body).toEqual({ object: 'webhook_endpoint_secret', secret: created.secret, previous_secret_expires_at: null });
    const [entry] = await deps()
      .db.select()
      .from(auditLogs)
      .where(and(eq(auditLogs.target, created.id), eq(auditLogs.action, 'webhook_endpoint.secret_revealed')));
    expect(entry).toBeDefined();
    await disable(created.id);
  });

  it('defaults to every event type, updates and deletes', async () => {
    const created = await createEndpoint();
    expect(created).toMatchObject({ event_types: ['*'] });
    const patched = await h.call('PATCH', `/v1/webhook_endpoints/${created.id}`, {
      key,
      body: { event_types: ['session.created'], description: 'sessions', disabled: true },
    });
    expect(patched.body).toMatchObject({
      event_types: ['session.created'],
      description: 'sessions',
      disabled: true,
      disabled_reason: null,
    });
    const deleted = await h.call('DELETE', `/v1/webhook_endpoints/${created.id}`, { key });
    expect(deleted.body).toEqual({ object: 'webhook_endpoint', id: created.id, deleted: true });
    expectError(await h.call('GET', `/v1/webhook_endpoints/${created.id}`, { key }), 404, 'NOT_FOUND');
  });

  it('refuses unknown event types and bad bodies with 422', async () => {
    const bad = await h.call('POST', '/v1/webhook_endpoints', {
      key,
      body: { url: rx.url, event_types: ['user.created', 'user.exploded'] },
    });
    expectError(bad, 422, 'VALIDATION_FAILED', { param: 'event_types', reason: 'unknown_event_type' });
    expect(bad.body.errors[0].message).toContain('user.exploded');
    expectError(await h.call('POST', '/v1/webhook_endpoints', { key, body: { url: rx.url, event_types: [] } }), 422, 'VALIDATION_FAILED');
    expectError(await h.call('POST', '/v1/webhook_endpoints', { key, body: { event_types: ['*'] } }), 422, 'VALIDATION_FAILED');
    expectError(await h.call('POST', '/v1/webhook_endpoints', { key, body: { url: rx.url, colour: 'red' } }), 422, 'VALIDATION_FAILED');
    expectError(
      await h.call('PATCH', '/v1/webhook_endpoints/whep_01JAAAAAAAAAAAAAAAAAAAAAAA', { key, body: { event_types: ['nope'] } }),
      422,
      'VALIDATION_FAILED',
    );
  });

  it('needs webhooks scopes; another instance’s endpoint is a 404', async () => {
    const reader = await h.createKey(instanceId, 'webhooks:read');
    const created = await createEndpoint();
    expect((await h.call('GET', `/v1/webhook_endpoints/${created.id}`, { key: reader.secret })).status).toBe(200);
    expectError(await h.call('POST', '/v1/webhook_endpoints', { key: reader.secret, body: { url: rx.url } }), 403, 'SCOPE_MISSING', {
      required_scope: 'webhooks:write',
    });
    expectError(await h.call('GET', `/v1/webhook_endpoints/${created.id}/secret`, { key: reader.secret }), 403, 'SCOPE_MISSING');
    const other = await h.createInstance();
    for (const [method, path] of [
      ['GET', `/v1/webhook_endpoints/${created.id}`],
      ['PATCH', `/v1/webhook_endpoints/${created.id}`],
      ['DELETE', `/v1/webhook_endpoints/${created.id}`],
      ['GET', `/v1/webhook_endpoints/${created.id}/secret`],
      ['POST', `/v1/webhook_endpoints/${created.id}/secret/rotate`],
      ['POST', `/v1/webhook_endpoints/${created.id}/test`],
      ['GET', `/v1/webhook_endpoints/${created.id}/deliveries`],
    ] as const) {
      expectError(await h.call(method, path, { key: other.secret, body: method === 'PATCH' ? {} : undefined }), 404, 'NOT_FOUND');
    }
    expect((await h.call('GET', '/v1/webhook_endpoints', { key: other.secret })).body.data).toEqual([]);
    await disable(created.id);
  });
});

describe('delivery', () => {
  it('POSTs the event envelope signed the Standard Webhooks way, verifiable by the standardwebhooks package', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    const user = (await createUser()).body;
    expect(await work()).toBe(1);
    expect(rx.received).toHaveLength(1);
    const got = rx.received[0]!;
    expect(got.path).toBe('/hook');
    expect(got.headers['content-type']).toBe('application/json');
    expect(got.headers['webhook-id']).toMatch(/^msg_[0-9A-Z]{26}$/);
    expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/=]+$/);
    const payload = verifyDelivery(ep.secret, got) as Record<string, unknown>;
    expect(payload).toMatchObject({ object: 'event', type: 'user.created', instance_id: instanceId, data: user });
    expect(payload.id).toMatch(/^evt_/);
    // A tampered body fails verification.
    expect(() => verifyDelivery(ep.secret, { ...got, body: got.body.replace(user.id, 'user_forged') })).toThrow();
    // So does another secret.
    expect(() => verifyDelivery(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got)).toThrow();
    const [msg] = await deliveries(ep.id);
    expect(msg).toMatchObject({
      id: got.headers['webhook-id'],
      event_type: 'user.created',
      status: 'succeeded',
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(msg.attempts).toEqual([
      expect.objectContaining({ status_code: 200, response: 'ok', error: null, duration_ms: expect.any(Number) }),
    ]);
    await disable(ep.id);
  });

  it('connects to the address a host name resolved to, keeping the name in Host', async () => {
    dnsTable['receiver.test'] = '127.0.0.1';
    const port = new URL(rx.url).port;
    const ep = await createEndpoint({ url: `http://receiver.test:${port}/named`, event_types: ['user.created'] });
    await createUser();
    expect(await work()).toBe(1);
    expect(rx.received[0]!.headers.host).toBe(`receiver.test:${port}`);
    verifyDelivery(ep.secret, rx.received[0]!);
    await disable(ep.id);
  });

  it('counts deliveries by outcome and shows the queue depth in /metrics', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    await createUser();
    const before = await deps().metrics.registry.getSingleMetricAsString('latchkey_webhook_queue_depth');
    expect(before).toMatch(/latchkey_webhook_queue_depth [1-9]/);
    await work();
    const text = await deps().metrics.registry.metrics();
    expect(text).toMatch(/latchkey_webhook_deliveries_total\{outcome="succeeded"\} [1-9]/);
    expect(text).toMatch(/latchkey_webhook_queue_depth 0/);
    await disable(ep.id);
  });

  it('adds final outcomes to the instance’s daily delivery figures (a retry is not one)', async () => {
    const today = async () => {
      const { series } = await instanceMetrics(deps(), instanceId, 7);
      return { ok: series.webhook_deliveries_succeeded.at(-1)!.value, failed: series.webhook_deliveries_failed.at(-1)!.value };
    };
    const before = await today();
    const ep = await createEndpoint({ event_types: ['user.created'] });
    await createUser();
    rx.reply = answer(500);
    await work();
    expect(await today()).toEqual(before);
    rx.reply = answer(410);
    h.clock.advance(RETRY_SCHEDULE_MS[0]!);
    await work();
    expect(await today()).toEqual({ ok: before.ok, failed: before.failed + 1 });
    await h.call('PATCH', `/v1/webhook_endpoints/${ep.id}`, { key, body: { disabled: false } });
    rx.reply = answer(200);
    await createUser();
    await work();
    expect(await today()).toEqual({ ok: before.ok + 1, failed: before.failed + 1 });
    await disable(ep.id);
  });

  it('sends only subscribed types; nothing is queued when no endpoint listens', async () => {
    const ep = await createEndpoint({ event_types: ['user.deleted'] });
    const user = (await createUser()).body;
    expect(await work()).toBe(0);
    await h.call('DELETE', `/v1/users/${user.id}`, { key });
    expect(await work()).toBe(1);
    expect(JSON.parse(rx.received[0]!.body)).toMatchObject({ type: 'user.deleted', data: { id: user.id, deleted: true } });
    await disable(ep.id);
  });

  it('retries at 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h with the same webhook-id, then fails the message', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(500, 'down');
    await createUser();
    expect(await work()).toBe(1);
    for (const delay of RETRY_SCHEDULE_MS) {
      const [msg] = await deliveries(ep.id);
      expect(msg.status).toBe('pending');
      expect(msg.next_attempt_at).toBe(h.clock.now() + delay);
      h.clock.advance(delay - 1);
      expect(await work()).toBe(0);
      h.clock.advance(1);
      expect(await work()).toBe(1);
    }
    const [msg] = await deliveries(ep.id);
    expect(msg).toMatchObject({ status: 'failed', attempt_count: 8, next_attempt_at: null });
    expect(msg.attempts).toHaveLength(8);
    expect(msg.attempts.every((a: { status_code: number; response: string }) => a.status_code === 500 && a.response === 'down')).toBe(true);
    expect(rx.received).toHaveLength(8);
    expect(new Set(rx.received.map((r) => r.headers['webhook-id'])).size).toBe(1);
    for (const r of rx.received) verifyDelivery(ep.secret, r);
    h.clock.advance(24 * 3_600_000);
    expect(await work()).toBe(0);
    // A manual retry delivers it again, same webhook-id.
    rx.reply = answer(204);
    const retried = await h.call('POST', `/v1/webhook_endpoints/${ep.id}/deliveries/${msg.id}/retry`, { key });
    expect(retried.status).toBe(202);
    expect(retried.body).toMatchObject({ id: msg.id, status: 'pending' });
    expect(await work()).toBe(1);
    expect(rx.received.at(-1)!.headers['webhook-id']).toBe(msg.id);
    expect((await deliveries(ep.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 9 });
    await disable(ep.id);
  });

  it('keeps the first 4 KiB of a response and does not follow redirects', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(302, 'x'.repeat(10_000), { location: `${rx.url}/elsewhere` });
    await createUser();
    await work();
    expect(rx.received.map((r) => r.path)).toEqual(['/hook']);
    const [msg] = await deliveries(ep.id);
    expect(msg.status).toBe('pending');
    expect(msg.attempts[0].status_code).toBe(302);
    expect(msg.attempts[0].response).toHaveLength(4096);
    await disable(ep.id);
  });

  it('a 410 disables the endpoint and fails the message', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(410);
    await createUser();
    await work();
    const got = await h.call('GET', `/v1/webhook_endpoints/${ep.id}`, { key });
    expect(got.body).toMatchObject({ disabled: true, disabled_reason: 'gone' });
    expect((await deliveries(ep.id))[0]).toMatchObject({ status: 'failed', attempt_count: 1 });
    await createUser();
    expect(await work()).toBe(0);
    expect(await deliveries(ep.id)).toHaveLength(1);
    // Retry and recover are refused while it is disabled.
    const msgId = (await deliveries(ep.id))[0].id;
    expectError(await h.call('POST', `/v1/webhook_endpoints/${ep.id}/deliveries/${msgId}/retry`, { key }), 409, 'CONFLICT', {
      reason: 'endpoint_disabled',
    });
    // Enabling it clears the reason; recovery delivers the failed message.
    const enabled = await h.call('PATCH', `/v1/webhook_endpoints/${ep.id}`, { key, body: { disabled: false } });
    expect(enabled.body).toMatchObject({ disabled: false, disabled_reason: null });
    rx.reply = answer(200);
    const recovered = await h.call('POST', `/v1/webhook_endpoints/${ep.id}/recover`, { key, body: { since: 0 } });
    expect(recovered.body).toEqual({ object: 'webhook_recovery', endpoint_id: ep.id, requeued: 1 });
    expect(await work()).toBe(1);
    expect((await deliveries(ep.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    await disable(ep.id);
  });

  it('honours Retry-After on 429 and 503', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(429, '', { 'retry-after': '120' });
    await createUser();
    await work();
    expect((await deliveries(ep.id))[0].next_attempt_at).toBe(h.clock.now() + 120_000);
    h.clock.advance(120_000);
    rx.reply = answer(503, '', { 'retry-after': '3600' });
    await work();
    expect(rx.received).toHaveLength(2);
    expect((await deliveries(ep.id))[0].next_attempt_at).toBe(h.clock.now() + 3_600_000);
    h.clock.advance(3_600_000);
    rx.reply = answer(200);
    await work();
    expect(rx.received).toHaveLength(3);
    expect((await deliveries(ep.id))[0].status).toBe('succeeded');
    await disable(ep.id);
  });

  it('disables an endpoint that has failed for 5 days', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(500);
    await createUser();
    await work();
    h.clock.advance(3 * 24 * 3_600_000);
    await createUser();
    await work();
    expect((await h.call('GET', `/v1/webhook_endpoints/${ep.id}`, { key })).body).toMatchObject({
      disabled: false,
      failing_since: expect.any(Number),
    });
    h.clock.advance(2 * 24 * 3_600_000);
    await createUser();
    await work();
    expect((await h.call('GET', `/v1/webhook_endpoints/${ep.id}`, { key })).body).toMatchObject({
      disabled: true,
      disabled_reason: 'failing',
    });
    // Its other pending messages fail without another request.
    const before = rx.received.length;
    h.clock.advance(24 * 3_600_000);
    await work();
    expect(rx.received.length).toBe(before);
    expect((await deliveries(ep.id)).every((m) => m.status === 'failed')).toBe(true);
  });

  it('a success ends the failure streak', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(500);
    await createUser();
    await work();
    rx.reply = answer(200);
    h.clock.advance(5_000);
    await work();
    expect((await h.call('GET', `/v1/webhook_endpoints/${ep.id}`, { key })).body.failing_since).toBeNull();
    await disable(ep.id);
  });

  it('signs with the old and the new secret for 24 h after a rotation', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    const rotated = await h.call('POST', `/v1/webhook_endpoints/${ep.id}/secret/rotate`, { key });
    expect(rotated.body).toMatchObject({ object: 'webhook_endpoint_secret', previous_secret_expires_at: h.clock.now() + 24 * 3_600_000 });
    const fresh = rotated.body.secret as string;
    expect(fresh).not.toBe(ep.secret);
    await createUser();
    await work();
    const got = rx.received[0]!;
    expect(String(got.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyDelivery(fresh, got);
    verifyDelivery(ep.secret, got);
    expect((await h.call('GET', `/v1/webhook_endpoints/${ep.id}/secret`, { key })).body.secret).toBe(fresh);
    h.clock.advance(24 * 3_600_000);
    await createUser();
    await work();
    const later = rx.received[1]!;
    expect(String(later.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verifyDelivery(fresh, later);
    expect(() => verifyDelivery(ep.secret, later)).toThrow();
    await disable(ep.id);
  });

  it('recovers failed messages since a time only', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    rx.reply = answer(410);
    await createUser();
    await work();
    await h.call('PATCH', `/v1/webhook_endpoints/${ep.id}`, { key, body: { disabled: false } });
    h.clock.advance(60_000);
    const since = h.clock.now();
    await createUser();
    await work(); // 410 again
    await h.call('PATCH', `/v1/webhook_endpoints/${ep.id}`, { key, body: { disabled: false } });
    rx.reply = answer(200);
    const res = await h.call('POST', `/v1/webhook_endpoints/${ep.id}/recover`, { key, body: { since } });
    expect(res.body.requeued).toBe(1);
    expectError(
      await h.call('POST', `/v1/webhook_endpoints/${ep.id}/recover`, { key, body: { since: 10, until: 5 } }),
      422,
      'VALIDATION_FAILED',
    );
    expectError(await h.call('POST', `/v1/webhook_endpoints/${ep.id}/recover`, { key, body: {} }), 422, 'VALIDATION_FAILED');
    await work();
    const statuses = (await deliveries(ep.id)).map((m) => m.status);
    expect(statuses).toEqual(['succeeded', 'failed']);
    await disable(ep.id);
  });

  it('lists deliveries with a cursor and a status filter; an unknown message is a 404', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    for (let i = 0; i < 3; i++) await createUser();
    await work();
    const page1 = await h.call('GET', `/v1/webhook_endpoints/${ep.id}/deliveries?limit=2`, { key });
    expect(page1.body).toMatchObject({ has_more: true });
    expect(page1.body.data).toHaveLength(2);
    const page2 = await h.call('GET', `/v1/webhook_endpoints/${ep.id}/deliveries?limit=2&starting_after=${page1.body.next_cursor}`, {
      key,
    });
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(page2.body.data).toHaveLength(1);
    expect((await h.call('GET', `/v1/webhook_endpoints/${ep.id}/deliveries?status=failed`, { key })).body.data).toEqual([]);
    expectError(await h.call('GET', `/v1/webhook_endpoints/${ep.id}/deliveries?status=lost`, { key }), 422, 'VALIDATION_FAILED');
    expectError(
      await h.call('POST', `/v1/webhook_endpoints/${ep.id}/deliveries/msg_01JAAAAAAAAAAAAAAAAAAAAAAA/retry`, { key }),
      404,
      'NOT_FOUND',
    );
    await disable(ep.id);
  });

  raceTest('two claims never hand out the same message', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    for (let i = 0; i < 6; i++) await createUser();
    const [a, b] = await Promise.all([claimDueMessages(deps(), 4), claimDueMessages(deps(), 4)]);
    const ids = [...a!, ...b!].map((m) => m.id);
    expect(ids).toHaveLength(6);
    expect(new Set(ids).size).toBe(6);
    // Claimed messages are leased: nothing is due until the lease runs out.
    expect(await claimDueMessages(deps(), 10)).toEqual([]);
    h.clock.advance(60_000);
    expect(await work()).toBe(6);
    await disable(ep.id);
  });

  it('counts a message claimed again after its claim lapsed or was given back unfinished (a possible duplicate), and no other', async () => {
    const redeliveries = async () =>
      (await deps().metrics.registry.getSingleMetric('latchkey_webhook_redeliveries_total')!.get()).values[0]?.value ?? 0;
    const ep = await createEndpoint({ event_types: ['user.created'] });
    const before = await redeliveries();
    for (let i = 0; i < 3; i++) await createUser();
    const first = await claimDueMessages(deps(), 10);
    expect(first).toHaveLength(3);
    expect(await redeliveries()).toBe(before);
    // The worker that claimed them died: the lease lapses, another claims them, counted.
    h.clock.advance(60_000);
    const again = await claimDueMessages(deps(), 10);
    expect(again.map((m) => m.id).sort()).toEqual(first.map((m) => m.id).sort());
    expect(await redeliveries()).toBe(before + 3);
    // A stopping worker gives back what it could not finish: claimable at once, counted.
    await releaseClaims(deps(), [again[0]!.id]);
    expect((await claimDueMessages(deps(), 10)).map((m) => m.id)).toEqual([again[0]!.id]);
    expect(await redeliveries()).toBe(before + 4);
    // Those claims lapse in turn (counted again); once delivered and acknowledged, nothing is claimed or counted.
    h.clock.advance(60_000);
    expect(await work()).toBe(3);
    expect(await redeliveries()).toBe(before + 7);
    h.clock.advance(60_000);
    expect(await work()).toBe(0);
    expect(await redeliveries()).toBe(before + 7);
    await disable(ep.id);
  });
});

describe('an endpoint deleted during a delivery', () => {
  it('drops the attempt quietly', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    let release: () => void = () => {};
    rx.reply = (_req, res) => {
      release = () => answer(200)(_req, res);
    };
    await createUser();
    const arrived = rx.next();
    const delivering = work();
    await arrived;
    expect((await h.call('DELETE', `/v1/webhook_endpoints/${ep.id}`, { key })).status).toBe(200);
    release();
    expect(await delivering).toBe(1);
    expect(await deps().db.select().from(webhookMessages).where(eq(webhookMessages.endpointId, ep.id))).toEqual([]);
  });
});

describe('retention', () => {
  it('purges finished messages after 30 days and keeps pending ones', async () => {
    const ep = await createEndpoint({ event_types: ['user.created'] });
    await createUser();
    await work();
    rx.reply = answer(500);
    await createUser();
    await work();
    h.clock.advance(MESSAGE_RETENTION_MS - 1);
    await purgeWebhookMessages(deps());
    expect(await deliveries(ep.id)).toHaveLength(2);
    h.clock.advance(2);
    // The failing one waits for its retry: pending, kept however old.
    await purgeWebhookMessages(deps());
    expect((await deliveries(ep.id)).map((m) => m.status)).toEqual(['pending']);
    await disable(ep.id);
    await work(); // its pending message fails now, out of the next tests' way
  });
});

describe('test event', () => {
  it('emits webhook.test to that endpoint only, not even to a * subscriber', async () => {
    const target = await createEndpoint({ event_types: ['user.created'] });
    const everything = await createEndpoint({ event_types: ['*'] });
    const res = await h.call('POST', `/v1/webhook_endpoints/${target.id}/test`, { key });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ object: 'webhook_message', endpoint_id: target.id, event_type: 'webhook.test', status: 'pending' });
    expect(await work()).toBe(1);
    expect(rx.received).toHaveLength(1);
    expect(verifyDelivery(target.secret, rx.received[0]!)).toMatchObject({
      type: 'webhook.test',
      data: { object: 'webhook_endpoint', id: target.id },
    });
    expect(await deliveries(everything.id)).toEqual([]);
    const types = (await h.call('GET', '/v1/events', { key })).body.data.map((t: { type: string }) => t.type);
    expect(types).toContain('webhook.test');
    const rows = await deps().db.select().from(webhookMessages).where(eq(webhookMessages.eventType, 'webhook.test'));
    expect(rows.map((r) => r.endpointId)).toEqual([target.id]);
    await disable(target.id);
    await disable(everything.id);
    expectError(await h.call('POST', `/v1/webhook_endpoints/${target.id}/test`, { key }), 409, 'CONFLICT');
  });
});

describe('SSRF guard', () => {
  /** No ALLOW_PRIVATE_WEBHOOK_TARGETS. */
  const strict = sharedHarness({
    dns: async (host) => (dnsTable[host] ? [{ address: dnsTable[host]!, family: isIP(dnsTable[host]!) === 6 ? 6 : 4 }] : []),
  });

  it('refuses private targets on a test instance without the flag and any on a live one', async () => {
    {
      const t = await strict.createInstance();
      const refused = async (url: string, reason: string, k = t.secret) =>
        expectError(await strict.call('POST', '/v1/webhook_endpoints', { key: k, body: { url } }), 422, 'VALIDATION_FAILED', {
          param: 'url',
          reason,
        });
      for (const url of [
        'http://127.0.0.1:8080/',
        'http://localhost/',
        'http://api.localhost/',
        'http://10.1.2.3/',
        'http://172.16.0.1/',
        'http://192.168.1.1/',
        'http://169.254.169.254/latest/meta-data/',
        'http://100.64.0.1/',
        'http://0.0.0.0/',
        'http://[::1]/',
        'http://[::ffff:127.0.0.1]/',
        'http://[::ffff:a9fe:a9fe]/',
        'http://[fd00::1]/',
        'http://[fe80::1]/',
        'http://2130706433/', // 127.0.0.1 spelled as one number
        'http://evil.test/', // resolves to 127.0.0.1
      ]) {
        await refused(url, 'private_address');
      }
      // The way forward for a receiver on the developer's machine is named; a live instance has none.
      const loopback = await strict.call('POST', '/v1/webhook_endpoints', { key: t.secret, body: { url: 'http://127.0.0.1:8080/' } });
      expectError(loopback, 422, 'VALIDATION_FAILED', { param: 'url', reason: 'private_address', enable_with: 'ALLOW_PRIVATE_TARGETS=1' });
      expect(loopback.body.errors[0].message).toContain('ALLOW_PRIVATE_TARGETS=1');
      await refused('ftp://example.com/', 'scheme_not_allowed');
      await refused('file:///etc/passwd', 'scheme_not_allowed');
      await refused('not a url', 'invalid_url');
      await refused('http://user:pass@public.test/', 'credentials_not_allowed');
      expect((await strict.call('POST', '/v1/webhook_endpoints', { key: t.secret, body: { url: 'http://public.test/hook' } })).status).toBe(
        200,
      );
      const live = await strict.createInstance({ environment: 'live' });
      await refused('http://public.test/hook', 'https_required', live.secret);
      expect(
        (await strict.call('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: 'https://public.test/hook' } })).status,
      ).toBe(200);
    }
  });

  it('ALLOW_PRIVATE_WEBHOOK_TARGETS never applies to live instances', async () => {
    const live = await h.createInstance({ environment: 'live' });
    expectError(
      await h.call('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: 'https://127.0.0.1/' } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'private_address' },
    );
    expectError(
      await h.call('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: 'https://evil.test/' } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'private_address' },
    );
    const refused = await h.call('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: 'https://127.0.0.1/' } });
    expect(refused.body.errors[0].message).not.toContain('ALLOW_PRIVATE_TARGETS');
    expect(refused.body.errors[0].meta).toEqual({ param: 'url', reason: 'private_address' });
  });

  /** IPv6 spellings that carry 127.0.0.1 (compatible, NAT64 local-use, SIIT, 6to4, Teredo client) or reach it (IPv4-mapped). */
  const loopbackInIpv6 = [
    '::127.0.0.1',
    '64:ff9b:1::7f00:1',
    '::ffff:0:7f00:1',
    '2002:7f00:1::',
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    '::ffff:127.0.0.1',
  ];

  it('refuses IPv6 targets that embed a private IPv4 address, on a live instance', async () => {
    const live = await strict.createInstance({ environment: 'live' });
    for (const ip of loopbackInIpv6) {
      expectError(
        await strict.call('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: `https://[${ip}]/` } }),
        422,
        'VALIDATION_FAILED',
        {
          param: 'url',
          reason: 'private_address',
        },
      );
    }
    dnsTable['v6loop.test'] = '64:ff9b::a9fe:a9fe'; // NAT64 well-known prefix carrying 169.254.169.254
    try {
      expectError(
        await strict.call('POST', '/v1/webhook_endpoints', { key: live.secret, body: { url: 'https://v6loop.test/' } }),
        422,
        'VALIDATION_FAILED',
        {
          param: 'url',
          reason: 'private_address',
        },
      );
    } finally {
      delete dnsTable['v6loop.test'];
    }
    expect((await strict.call('GET', '/v1/webhook_endpoints', { key: live.secret })).body.data).toEqual([]);
  });

  it('refuses delivery to a name that resolves to an IPv6 address embedding a private IPv4 address', async () => {
    try {
      const t = await strict.createInstance();
      const port = new URL(rx.url).port;
      dnsTable['rebind6.test'] = '93.184.216.34';
      const ep = await strict.call('POST', '/v1/webhook_endpoints', {
        key: t.secret,
        body: { url: `http://rebind6.test:${port}/hook`, event_types: ['user.created'] },
      });
      expect(ep.status).toBe(200);
      for (const [i, ip] of loopbackInIpv6.entries()) {
        dnsTable['rebind6.test'] = ip;
        await strict.call('POST', '/v1/users', { key: t.secret, body: { email_address: [`rebind6.${i}@example.com`] } });
        expect(await runWebhookWorkerOnce(strict.runtime.deps)).toBe(1);
      }
      expect(rx.received).toHaveLength(0);
      const list = await strict.call('GET', `/v1/webhook_endpoints/${ep.body.id}/deliveries`, { key: t.secret });
      expect(list.body.data).toHaveLength(loopbackInIpv6.length);
      for (const d of list.body.data) {
        expect(d).toMatchObject({ status: 'pending', attempt_count: 1 });
        expect(d.attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining('private') });
      }
    } finally {
      delete dnsTable['rebind6.test'];
    }
  });

  it('checks the resolved address at every delivery (a name that turns private later is refused)', async () => {
    try {
      const t = await strict.createInstance();
      const port = new URL(rx.url).port;
      dnsTable['rebind.test'] = '93.184.216.34';
      const ep = await strict.call('POST', '/v1/webhook_endpoints', {
        key: t.secret,
        body: { url: `http://rebind.test:${port}/hook`, event_types: ['user.created'] },
      });
      expect(ep.status).toBe(200);
      dnsTable['rebind.test'] = '127.0.0.1';
      await strict.call('POST', '/v1/users', { key: t.secret, body: { email_address: ['rebind@example.com'] } });
      expect(await runWebhookWorkerOnce(strict.runtime.deps)).toBe(1);
      expect(rx.received).toHaveLength(0);
      const list = await strict.call('GET', `/v1/webhook_endpoints/${ep.body.id}/deliveries`, { key: t.secret });
      expect(list.body.data[0]).toMatchObject({ status: 'pending', attempt_count: 1 });
      expect(list.body.data[0].attempts[0]).toMatchObject({ status_code: null, error: expect.stringContaining('private') });
    } finally {
      delete dnsTable['rebind.test'];
    }
  });
});
