import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { startWebhookReceiver, verifyDelivery, type WebhookReceiver } from '../testing/webhook-receiver';
import { runWebhookWorkerOnce } from './worker';

/** The operation → event table of docs/webhooks.md, end to end: each operation's events reach a `*` subscriber. */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
let rx: WebhookReceiver;
let key: string;
let secret: string;

beforeAll(async () => {
  rx = await startWebhookReceiver();
  ({ secret: key } = await h.createInstance());
  const ep = await h.call('POST', '/v1/webhook_endpoints', { key, body: { url: rx.url, event_types: ['*'] } });
  secret = ep.body.secret;
});
afterAll(() => rx.close());

/** Runs the operation, delivers, and returns the types delivered for it, in order. */
async function eventsOf(op: () => Promise<unknown>): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const before = rx.received.length;
  await op();
  await runWebhookWorkerOnce(h.runtime.deps);
  return rx.received
    .slice(before)
    .map((r) => verifyDelivery(secret, r) as { type: string; data: Record<string, unknown>; id: string })
    .sort((a, b) => (a.id < b.id ? -1 : 1))
    .map(({ type, data }) => ({ type, data }));
}
const types = (list: { type: string }[]) => list.map((e) => e.type);

describe('event coverage', () => {
  it('users and sessions through BAPI', async () => {
    let userId = '';
    const created = await eventsOf(async () => {
      userId = (await h.call('POST', '/v1/users', { key, body: { email_address: ['cover@example.com'] } })).body.id;
    });
    expect(types(created)).toEqual(['user.created']);
    expect(created[0]!.data).toMatchObject({ object: 'user', id: userId });
    expect(types(await eventsOf(() => h.call('PATCH', `/v1/users/${userId}`, { key, body: { first_name: 'Cover' } })))).toEqual([
      'user.updated',
    ]);

    let sessionId = '';
    const minted = await eventsOf(async () => {
      sessionId = (await h.call('POST', '/v1/sessions', { key, body: { user_id: userId } })).body.id;
    });
    expect(types(minted)).toEqual(['session.created']);
    expect(types(await eventsOf(() => h.call('POST', `/v1/sessions/${sessionId}/revoke`, { key })))).toEqual(['session.revoked']);

    await h.call('POST', '/v1/sessions', { key, body: { user_id: userId } });
    await runWebhookWorkerOnce(h.runtime.deps);
    expect(types(await eventsOf(() => h.call('POST', `/v1/users/${userId}/ban`, { key })))).toEqual(['session.revoked', 'user.banned']);
    expect(types(await eventsOf(() => h.call('POST', `/v1/users/${userId}/unban`, { key })))).toEqual(['user.unbanned']);

    await h.call('POST', '/v1/sessions', { key, body: { user_id: userId } });
    await runWebhookWorkerOnce(h.runtime.deps);
    const deleted = await eventsOf(() => h.call('DELETE', `/v1/users/${userId}`, { key }));
    expect(types(deleted)).toEqual(['session.revoked', 'user.deleted']);
    expect(deleted[1]!.data).toMatchObject({ id: userId, deleted: true });

    const emitted = (await h.call('GET', '/v1/events', { key })).body.data.map((t: { type: string }) => t.type);
    expect(emitted).toEqual([
      'session.created',
      'session.revoked',
      'user.banned',
      'user.created',
      'user.deleted',
      'user.unbanned',
      'user.updated',
    ]);
  });
});
