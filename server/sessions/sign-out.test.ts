import { describe, expect, it } from 'vitest';
import { fapiClient } from '../testing/fapi-client';
import { createTestUser, eventsOf, signedInClient, type TestInstance } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);

let n = 0;
const newUser = (i = A) => createTestUser(h, i, { email_address: [`so${++n}@example.com`] });
const eventIds = async (i: TestInstance, type: string) => (await eventsOf(h, i.instanceId, type)).map((e) => e.data.id);

/** One browser signed in as two users: a multi-session client. */
async function twoUsersOneBrowser(native = false) {
  const u1 = await newUser();
  const u2 = await newUser();
  const first = await signedInClient(h, A, u1, { native });
  const second = await signedInClient(h, A, u2, { client: first.b });
  return { b: first.b, s1: first.sessionId, s2: second.sessionId, u1, u2 };
}

describe.each([
  ['web', false],
  ['native', true],
])('sign-out (%s)', (_mode, native) => {
  it('ends one session (session.ended); the other stays active and becomes the client’s session', async () => {
    const { b, s1, s2 } = await twoUsersOneBrowser(native);
    const before = (await b.call('GET', '/v1/client')).body;
    expect(before.sessions.map((s: { id: string }) => s.id)).toEqual([s2, s1]);
    expect(before.last_active_session_id).toBe(s2);

    const res = await b.call('POST', `/v1/client/sessions/${s2}/end`);
    expect(res.status).toBe(200);
    expect(res.body.response).toMatchObject({ id: s2, status: 'ended' });
    expect(res.body.client.sessions.map((s: { id: string }) => s.id)).toEqual([s1]);
    expect(res.body.client.session.id).toBe(s1);
    expect(await eventIds(A, 'session.ended')).toContain(s2);

    // Ending it again is a conflict; it can still be removed.
    expect((await b.call('POST', `/v1/client/sessions/${s2}/end`)).status).toBe(409);
    const removed = await b.call('POST', `/v1/client/sessions/${s2}/remove`);
    expect(removed.status).toBe(200);
    expect(removed.body.response.status).toBe('removed');
    expect(await eventIds(A, 'session.removed')).toContain(s2);
    // Its jwt is refused.
    const jwt = await b.call('POST', `/v1/client/sessions/${s2}/tokens`);
    expect(jwt.status).toBe(401);
    expect(jwt.body.errors[0].code).toBe('SESSION_REMOVED');
  });

  it('removes a live session (session.removed)', async () => {
    const { b, s1 } = await twoUsersOneBrowser(native);
    const res = await b.call('POST', `/v1/client/sessions/${s1}/remove`);
    expect(res.status).toBe(200);
    expect(res.body.response).toMatchObject({ id: s1, status: 'removed' });
    expect(await eventIds(A, 'session.removed')).toContain(s1);
    expect(await eventIds(A, 'session.ended')).not.toContain(s1);
  });

  it('DELETE /v1/client/sessions ends every session of the client but keeps the client', async () => {
    const { b, s1, s2 } = await twoUsersOneBrowser(native);
    const token = b.token;
    const res = await b.call('DELETE', '/v1/client/sessions');
    expect(res.status).toBe(200);
    expect(res.body.client).toMatchObject({ sessions: [], session: null, last_active_session_id: null });
    expect(res.body.client.id).not.toBeNull();
    const ended = await eventIds(A, 'session.ended');
    expect(ended).toEqual(expect.arrayContaining([s1, s2]));
    expect(res.headers.get('set-cookie')).toBeNull(); // the cookie stays
    expect(b.token).toBe(token);
    const after = (await b.call('GET', '/v1/client')).body;
    expect(after.id).toBe(res.body.client.id);
    expect(after.session).toBeNull();
    // The same client signs in again.
    const again = await signedInClient(h, A, await newUser(), { client: b });
    expect(again.res.body.client.id).toBe(res.body.client.id);
  });

  it('touch switches the active session; only a live session of this client', async () => {
    const { b, s1, s2 } = await twoUsersOneBrowser(native);
    const res = await b.call('POST', `/v1/client/sessions/${s1}/touch`);
    expect(res.status).toBe(200);
    expect(res.body.response.id).toBe(s1);
    expect(res.body.client).toMatchObject({ last_active_session_id: s1, session: { id: s1 } });
    expect((await b.call('GET', '/v1/client')).body.session.id).toBe(s1);
    // The me-surface follows the active session, or the one named.
    const me1 = await b.call('GET', '/v1/me');
    const me2 = await b.call('GET', `/v1/me?session_id=${s2}`);
    expect(me1.body.id).not.toBe(me2.body.id);

    await b.call('POST', `/v1/client/sessions/${s2}/end`);
    const dead = await b.call('POST', `/v1/client/sessions/${s2}/touch`);
    expect(dead.status).toBe(401);
    expect(dead.body.errors[0].code).toBe('SESSION_ENDED');

    const other = await signedInClient(h, A, await newUser(), { native });
    expect((await b.call('POST', `/v1/client/sessions/${other.sessionId}/touch`)).status).toBe(404);
    expect((await b.call('POST', `/v1/client/sessions/${other.sessionId}/end`)).status).toBe(404);
    expect((await b.call('POST', `/v1/client/sessions/${other.sessionId}/remove`)).status).toBe(404);
    expect((await b.call('POST', '/v1/client/sessions/sess_nope/touch')).status).toBe(404);
  });

  it('answers 401 without a client', async () => {
    const anon = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey, native });
    for (const [m, p] of [
      ['POST', '/v1/client/sessions/sess_01J0000000000000000000000A/end'],
      ['POST', '/v1/client/sessions/sess_01J0000000000000000000000A/remove'],
      ['POST', '/v1/client/sessions/sess_01J0000000000000000000000A/touch'],
      ['DELETE', '/v1/client/sessions'],
    ] as const) {
      const res = await anon.call(m, p);
      expect(res.status, `${m} ${p}`).toBe(401);
      expect(res.body.errors[0].code).toBe('UNAUTHENTICATED');
    }
  });
});

describe('web and native modes', () => {
  it('web: the client travels as a cookie; a native bearer is never given a cookie', async () => {
    const u = await newUser();
    const web = await signedInClient(h, A, u);
    expect(web.res.setCookie).toMatch(/^__client=ct_/);
    expect(web.res.headers.get('authorization')).toBeNull();

    const app = await signedInClient(h, A, u, { native: true });
    expect(app.res.setCookie).toBeNull();
    expect(app.res.headers.get('authorization')).toMatch(/^Bearer ct_/);
    // The bearer works without a cookie or Origin; the cookie is not read in native mode.
    const viaBearer = await h.call('GET', `/fapi/${A.instanceId}/v1/client`, {
      headers: { 'x-publishable-key': A.publishableKey, authorization: `Bearer ${app.b.token}`, cookie: `__client=${web.b.token}` },
    });
    expect(viaBearer.body.session.id).toBe(app.sessionId);
    const end = await h.call('POST', `/fapi/${A.instanceId}/v1/client/sessions/${app.sessionId}/end`, {
      headers: { authorization: `Bearer ${app.b.token}` },
    });
    expect(end.status).toBe(200);
    // `?_is_native=1` without a token: native mode, no cookie.
    const fresh = await h.call('GET', `/fapi/${A.instanceId}/v1/client?_is_native=1`, {
      headers: { 'x-publishable-key': A.publishableKey },
    });
    expect(fresh.headers.get('set-cookie')).toBeNull();
    // Another instance's client token is a signed-out visitor there.
    const foreign = await h.call('GET', `/fapi/${B.instanceId}/v1/client`, {
      headers: { 'x-publishable-key': B.publishableKey, authorization: `Bearer ${web.b.token}` },
    });
    expect(foreign.body.session).toBeNull();
  });
});
