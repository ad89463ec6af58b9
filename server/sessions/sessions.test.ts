import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let key: string;
let userId: string;
beforeAll(async () => {
  h = await createHarness();
  ({ secret: key } = await h.createInstance());
  userId = (await h.call('POST', '/v1/users', { key, body: { email_address: ['s@example.com'] } })).body.id;
});
afterAll(() => h.close());

/** A customer's server: verifies jwts against the served JWKS. */
const jwks = () =>
  createRemoteJWKSet(new URL('http://localhost:3000/v1/jwks'), {
    [customFetch]: (url: string) => h.request('GET', new URL(url).pathname, { key }),
  });

describe('sessions smoke', () => {
  it('mints, verifies, refreshes and revokes', async () => {
    const minted = await h.call('POST', '/v1/sessions', { key, body: { user_id: userId } });
    expect(minted.status).toBe(200);
    expect(minted.body).toMatchObject({ object: 'session', user_id: userId, status: 'active', expires_in: 60 });
    const { payload } = await jwtVerify(minted.body.jwt, jwks(), { currentDate: new Date(h.clock.now()) });
    expect(payload).toMatchObject({ sub: userId, sid: minted.body.id, sts: 'active', sv: 1 });

    const verified = await h.call('POST', '/v1/sessions/verify', { key, body: { token: minted.body.jwt } });
    expect(verified.status).toBe(200);
    expect(verified.body.id).toBe(minted.body.id);

    const refreshed = await h.call('POST', `/v1/sessions/${minted.body.id}/refresh`, { key, body: { refresh_token: minted.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(minted.body.refresh_token);

    const revoked = await h.call('POST', `/v1/sessions/${minted.body.id}/revoke`, { key });
    expect(revoked.body.status).toBe('revoked');
    const after = await h.call('POST', '/v1/sessions/verify', { key, body: { token: refreshed.body.jwt } });
    expect(after.status).toBe(401);
    expect(after.body.errors[0].code).toBe('SESSION_REVOKED');
  });
});
