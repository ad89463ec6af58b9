import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { sharedHarness } from '../testing/harness';
import { expectError } from '../testing/expect';
import { startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../testing/webhook-receiver';
import { runWebhookWorkerOnce } from './worker';

/** The console's webhook calls: the BAPI's endpoints under /v1/dashboard, behind VIEWER/ADMIN guards. */
const h = sharedHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
let rx: WebhookReceiver;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let base: string;

beforeAll(async () => {
  rx = await startWebhookReceiver();
  owner = await claimedConsole(h);
  const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Hooks', environment: 'test' } });
  base = `/accounts/${owner.accountId}/instances/${instance.body.id}/webhook_endpoints`;
  viewer = await invitedViewer(h, owner);
});
afterAll(() => rx.close());

describe('test events of the types an endpoint subscribes to', () => {
  it('sends an example of a subscribed type to this endpoint only; the log shows the payload sent and the answer received', async () => {
    const mine = await owner.b.dash('POST', base, {
      body: { url: `${rx.url}/examples`, event_types: ['organization.created', 'user.created'] },
    });
    const other = await owner.b.dash('POST', base, { body: { url: `${rx.url}/everything`, event_types: ['*'] } });
    expect(other.status).toBe(200);
    const sent = await owner.b.dash('POST', `${base}/${mine.body.id}/test`, { body: { event_type: 'organization.created' } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    expect(sent.body).toMatchObject({
      event_type: 'organization.created',
      payload: { object: 'event', type: 'organization.created', data: { object: 'organization', id: 'org_example' } },
    });
    const before = rx.received.length;
    await runWebhookWorkerOnce(h.runtime.deps);
    const got = rx.received.slice(before);
    expect(got.map((r) => r.path)).toEqual(['/examples']);
    expect(verifyDelivery(mine.body.secret, got[0]!)).toMatchObject({ type: 'organization.created', data: { name: 'Example Inc' } });

    const log = await owner.b.dash('GET', `${base}/${mine.body.id}/deliveries`);
    expect(log.body.data[0]).toMatchObject({
      event_type: 'organization.created',
      payload: { type: 'organization.created', data: { id: 'org_example' } },
      attempts: [expect.objectContaining({ status_code: 200, response: expect.any(String) })],
    });
    expectError(
      await owner.b.dash('POST', `${base}/${mine.body.id}/test`, { body: { event_type: 'session.created' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'event_type', reason: 'not_subscribed' },
    );
    expectError(
      await owner.b.dash('POST', `${base}/${mine.body.id}/test`, { body: { event_type: 'webhook.test' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'event_type' },
    );
    expect((await owner.b.dash('POST', `${base}/${other.body.id}/test`, { body: { event_type: 'session.created' } })).status).toBe(202);
    // The next file's tests start from an instance without endpoints.
    for (const id of [mine.body.id, other.body.id]) await owner.b.dash('DELETE', `${base}/${id}`);
    await runWebhookWorkerOnce(h.runtime.deps);
  });
});

describe('dashboard webhook endpoints', () => {
  let endpointId: string;
  let secret: string;

  it('an admin creates an endpoint, sends a test event and reads the delivery log', async () => {
    const created = await owner.b.dash('POST', base, { body: { url: `${rx.url}/console`, event_types: ['user.created'] } });
    expect(created.status).toBe(200);
    expect(created.body.secret).toMatch(/^whsec_/);
    ({ id: endpointId, secret } = created.body);
    expect((await owner.b.dash('GET', base)).body.data.map((e: { id: string }) => e.id)).toEqual([endpointId]);
    const test = await owner.b.dash('POST', `${base}/${endpointId}/test`);
    expect(test.status).toBe(202);
    await runWebhookWorkerOnce(h.runtime.deps);
    expect(verifyDelivery(secret, rx.received.at(-1)!)).toMatchObject({ type: 'webhook.test' });
    const log = await owner.b.dash('GET', `${base}/${endpointId}/deliveries`);
    expect(log.body.data[0]).toMatchObject({
      event_type: 'webhook.test',
      status: 'succeeded',
      attempts: [expect.objectContaining({ status_code: 200 })],
    });
    const retried = await owner.b.dash('POST', `${base}/${endpointId}/deliveries/${log.body.data[0].id}/retry`);
    expect(retried.status).toBe(202);
    const revealed = await owner.b.dash('GET', `${base}/${endpointId}/secret`);
    expect(revealed.body.secret).toBe(secret);
    const rotated = await owner.b.dash('POST', `${base}/${endpointId}/secret/rotate`);
    expect(rotated.body.secret).not.toBe(secret);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.target, endpointId), eq(auditLogs.action, 'webhook_endpoint.secret_rotated')));
    expect(entry!.actor).toBe(`operator:${owner.operator.id}`);
    const patched = await owner.b.dash('PATCH', `${base}/${endpointId}`, { body: { event_types: ['*'], description: 'all' } });
    expect(patched.body).toMatchObject({ event_types: ['*'], description: 'all' });
  });

  it('viewers read the endpoints and the log but change nothing, nor see the secret', async () => {
    expect((await viewer.dash('GET', base)).status).toBe(200);
    expect((await viewer.dash('GET', `${base}/${endpointId}`)).status).toBe(200);
    expect((await viewer.dash('GET', `${base}/${endpointId}/deliveries`)).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', base, { url: rx.url }],
      ['PATCH', `${base}/${endpointId}`, { disabled: true }],
      ['DELETE', `${base}/${endpointId}`, undefined],
      ['GET', `${base}/${endpointId}/secret`, undefined],
      ['POST', `${base}/${endpointId}/secret/rotate`, undefined],
      ['POST', `${base}/${endpointId}/test`, undefined],
      ['POST', `${base}/${endpointId}/recover`, { since: 0 }],
    ] as const) {
      expect((await viewer.dash(method, path, { body })).status, `${method} ${path}`).toBe(403);
    }
  });

  it('another account’s instance is a 404; writes need the console Origin', async () => {
    const other = await owner.b.dash('POST', '/accounts', { body: { name: 'Elsewhere' } });
    const foreign = base.replace(owner.accountId, other.body.id);
    expect((await owner.b.dash('GET', foreign)).status).toBe(404);
    expect((await owner.b.dash('GET', `${foreign}/${endpointId}`)).status).toBe(404);
    const noOrigin = await owner.b.dash('POST', base, { body: { url: rx.url }, origin: null });
    expect(noOrigin.status).toBe(403);
    expect(noOrigin.body.errors[0].code).toBe('ORIGIN_NOT_ALLOWED');
    expect((await owner.b.dash('DELETE', `${base}/${endpointId}`)).body).toEqual({
      object: 'webhook_endpoint',
      id: endpointId,
      deleted: true,
    });
  });
});
