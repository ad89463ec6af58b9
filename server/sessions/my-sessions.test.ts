import { describe, expect, it } from 'vitest';
import { expectError } from '../testing/expect';
import { createTestUser, eventsOf, signedInClient } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);

let n = 0;
const newUser = (i = A) => createTestUser(h, i, { email_address: [`dev${++n}@example.com`] });
const ids = (list: { id: string }[]) => list.map((s) => s.id);

describe('the signed-in user’s sessions across devices', () => {
  it('lists only the caller’s live sessions, marking the current one and this device', async () => {
    const userId = await newUser();
    const laptop = await signedInClient(h, A, userId);
    const phone = await signedInClient(h, A, userId);
    const stranger = await signedInClient(h, A, await newUser());
    const res = await laptop.b.call('GET', '/v1/me/sessions');
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(ids(res.body.data)).toEqual([phone.sessionId, laptop.sessionId]);
    expect(res.body.data.find((s: { id: string }) => s.id === laptop.sessionId)).toMatchObject({
      current: true,
      this_client: true,
      user_id: userId,
      status: 'active',
    });
    expect(res.body.data.find((s: { id: string }) => s.id === phone.sessionId)).toMatchObject({ current: false, this_client: false });
    expect(ids(res.body.data)).not.toContain(stranger.sessionId);
  });

  it('revokes one session on another device (session.revoked); others’ sessions are 404', async () => {
    const userId = await newUser();
    const laptop = await signedInClient(h, A, userId);
    const phone = await signedInClient(h, A, userId);
    const stranger = await signedInClient(h, A, await newUser());
    const res = await laptop.b.call('POST', `/v1/me/sessions/${phone.sessionId}/revoke`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'session', id: phone.sessionId, status: 'revoked' });
    expect((await eventsOf(h, A.instanceId, 'session.revoked')).some((e) => e.data.id === phone.sessionId)).toBe(true);
    // The phone is signed out; the laptop is not.
    expectError(await phone.b.call('GET', '/v1/me'), 401, 'UNAUTHENTICATED');
    expect((await laptop.b.call('GET', '/v1/me')).status).toBe(200);
    // Twice: no longer live.
    expectError(await laptop.b.call('POST', `/v1/me/sessions/${phone.sessionId}/revoke`), 409, 'CONFLICT');
    // Another user's session, or another instance's, answers like a missing one.
    expectError(await laptop.b.call('POST', `/v1/me/sessions/${stranger.sessionId}/revoke`), 404, 'NOT_FOUND');
    const elsewhere = await signedInClient(h, B, await newUser(B));
    expectError(await laptop.b.call('POST', `/v1/me/sessions/${elsewhere.sessionId}/revoke`), 404, 'NOT_FOUND');
    expect((await stranger.b.call('GET', '/v1/me')).status).toBe(200);
  });

  it('signs out every other device and keeps the current session', async () => {
    const userId = await newUser();
    const laptop = await signedInClient(h, A, userId);
    const phone = await signedInClient(h, A, userId);
    const tablet = await signedInClient(h, A, userId);
    const res = await laptop.b.call('POST', '/v1/me/sessions/revoke_others');
    expect(res.status).toBe(200);
    expect(ids(res.body.data)).toEqual([laptop.sessionId]);
    for (const other of [phone, tablet]) expectError(await other.b.call('GET', '/v1/me'), 401, 'UNAUTHENTICATED');
    expect((await laptop.b.call('GET', '/v1/me')).status).toBe(200);
  });

  it('needs a signed-in session: signed out 401, a personal access token 403, a foreign origin 403', async () => {
    const { b } = await signedInClient(h, A, await newUser());
    const minted = await b.call('POST', '/v1/client/me/api_tokens', { body: { name: 'cli', scopes: ['me:read', 'me:write'] } });
    const token = minted.body.token as string;
    const withToken = { headers: { authorization: `Bearer ${token}` } };
    expectError(await h.call('GET', `/fapi/${A.instanceId}/v1/me/sessions`, withToken), 403, 'FORBIDDEN', {
      reason: 'personal_access_token',
    });
    expectError(await h.call('POST', `/fapi/${A.instanceId}/v1/me/sessions/revoke_others`, withToken), 403, 'FORBIDDEN');
    expectError(await h.call('GET', `/fapi/${A.instanceId}/v1/me/sessions`), 401, 'UNAUTHENTICATED');
    expectError(await b.call('POST', '/v1/me/sessions/revoke_others', { origin: 'https://evil.example' }), 403, 'ORIGIN_NOT_ALLOWED');
  });
});
