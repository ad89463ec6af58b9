import { systemContext } from '../../http/actor';
import { eq } from 'drizzle-orm';
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { clients } from '../../db/schema';
import { sha256Hex } from '../../crypto/secrets';
import { instanceContext, type InstanceContext } from '../../instances/instances';
import { instanceSettings } from '../../instances/settings';
import { createSession } from '../../sessions/sessions';
import { fapiClient } from '../../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../../testing/harness';
import { isApiPath } from '../index';
import { clearedClientCookie, clientCookie } from './authenticate';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);
let userA: string;
let userB: string;

beforeAll(async () => {
  userA = (await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: ['a@example.com'] } })).body.id;
  userB = (await h.call('POST', '/v1/users', { key: B.secret, body: { email_address: ['b@example.com'] } })).body.id;
});

const browser = (i = A, native = false) => fapiClient(h, i.instanceId, { publishableKey: i.publishableKey, native });
const signInToken = async (i = A, userId = userA) =>
  (await h.call('POST', '/v1/sign_in_tokens', { key: i.secret, body: { user_id: userId } })).body.token as string;
/** A browser signed in through a sign-in ticket; returns it and its session id. */
async function signedIn(i = A, userId = userA, native = false) {
  const b = browser(i, native);
  const res = await b.signInWithTicket(await signInToken(i, userId));
  expect(res.status).toBe(200);
  return { b, sessionId: res.body.response.created_session_id as string, res };
}
/** A customer's server verifying against the instance's FAPI JWKS. */
const fapiJwks = (i = A) =>
  createRemoteJWKSet(new URL(`http://localhost:3000/fapi/${i.instanceId}/.well-known/jwks.json`), {
    [customFetch]: (url: string) => h.request('GET', new URL(url).pathname),
  });

const SIGNED_OUT = { object: 'client', id: null, sessions: [], last_active_session_id: null, session: null };

describe('isApiPath', () => {
  it('sends FAPI API paths to the routers and hosted pages to Next.js', () => {
    expect(isApiPath('/fapi/ins_01J0000000000000000000000/v1/client')).toBe(true);
    expect(isApiPath('/fapi/ins_01J0000000000000000000000/v1')).toBe(true);
    expect(isApiPath('/fapi/ins_01J0000000000000000000000/.well-known/jwks.json')).toBe(true);
    expect(isApiPath('/fapi/ins_01J0000000000000000000000/sign-in')).toBe(false);
    expect(isApiPath('/fapi/ins_01J0000000000000000000000')).toBe(false);
    expect(isApiPath('/fapi/ins_01J0000000000000000000000/v1x')).toBe(false);
  });
});

describe('GET /v1/client', () => {
  it('answers a signed-out visitor with session null, key in the header or the query', async () => {
    const res = await browser().call('GET', '/v1/client');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject(SIGNED_OUT);
    expect(res.setCookie).toBeNull();
    expect(res.headers.get('cache-control')).toBe('no-store');

    const q = await h.call('GET', `/fapi/${A.instanceId}/v1/client?publishable_key=${A.publishableKey}&_clerk_js_version=5`);
    expect(q.status).toBe(200);
    expect(q.body).toMatchObject(SIGNED_OUT);
  });

  it('refuses a missing, malformed or foreign publishable key with 400, not 401 or 500', async () => {
    const path = `/fapi/${A.instanceId}/v1/client`;
    const cases: [Record<string, string>, string, string][] = [
      [{}, '', 'missing'],
      [{ 'x-publishable-key': 'hello' }, '', 'malformed'],
      [{ 'x-publishable-key': 'pk_test_!!!!' }, '', 'malformed'],
      [{ 'x-publishable-key': `pk_test_${'A'.repeat(5000)}` }, '', 'malformed'],
      [{ 'x-publishable-key': B.publishableKey }, '', 'wrong_instance'],
      [{}, `?publishable_key=${B.publishableKey}`, 'wrong_instance'],
      [{}, `?publishable_key=${A.publishableKey}&publishable_key=${B.publishableKey}`, 'wrong_instance'],
      [{ 'x-publishable-key': A.publishableKey }, `?publishable_key=sk_test_x`, 'malformed'],
    ];
    for (const [headers, query, reason] of cases) {
      const res = await h.call('GET', `${path}${query}`, { headers });
      expect(res.status, `${JSON.stringify(headers)} ${query}`).toBe(400);
      expect(res.body.errors[0]).toMatchObject({ code: 'PUBLISHABLE_KEY_INVALID', meta: { reason } });
    }
    // Routes where the key is optional still check one that is sent.
    const environment = await h.call('GET', `/fapi/${A.instanceId}/v1/environment`, { headers: { 'x-publishable-key': 'garbage' } });
    expect(environment.status).toBe(400);
    const refresh = await h.call('POST', `/fapi/${A.instanceId}/v1/sessions/sess_x/refresh`, {
      headers: { 'x-publishable-key': B.publishableKey },
      body: { refresh_token: 'rt_x' },
    });
    expect(refresh.body.errors[0].code).toBe('PUBLISHABLE_KEY_INVALID');
  });

  it('answers 404 for an unknown or malformed instance id', async () => {
    for (const id of ['ins_01J0000000000000000000000A', 'nope', 'ins_%00', '%F0%9F%98%80']) {
      const res = await h.call('GET', `/fapi/${id}/v1/client`, { headers: { 'x-publishable-key': A.publishableKey } });
      expect(res.status, id).toBe(404);
      expect(res.body.errors[0].code).toBe('NOT_FOUND');
    }
    const unknownRoute = await h.call('GET', `/fapi/${A.instanceId}/v1/nothing`);
    expect(unknownRoute.status).toBe(404);
    const wrongMethod = await h.call('PUT', `/fapi/${A.instanceId}/v1/client`);
    expect(wrongMethod.status).toBe(405);
  });

  it('treats a garbage or unknown client cookie as signed out and clears it', async () => {
    for (const token of ['garbage', `ct_${'x'.repeat(43)}`, '', 'ct_%00', '%E0%A4%A']) {
      const b = browser();
      b.token = token;
      const res = await b.call('GET', '/v1/client');
      expect(res.status, token).toBe(200);
      expect(res.body).toMatchObject(SIGNED_OUT);
      expect(res.setCookie).toBe(`__client=; Path=/fapi/${A.instanceId}; HttpOnly; SameSite=Lax; Max-Age=0`);
    }
  });

  it('treats another instance’s client as signed out', async () => {
    const { b } = await signedIn(B, userB);
    const stolen = browser(A);
    stolen.token = b.token;
    const res = await stolen.call('GET', '/v1/client');
    expect(res.body).toMatchObject(SIGNED_OUT);
    expect(res.setCookie).toContain('Max-Age=0');
  });
});

describe('web clients', () => {
  it('a ticket sign-in sets the client cookie; GET /v1/client then shows the session', async () => {
    const { b, sessionId, res } = await signedIn();
    expect(res.setCookie).toMatch(
      new RegExp(`^__client=ct_[A-Za-z0-9_-]{43}; Path=/fapi/${A.instanceId}; HttpOnly; SameSite=Lax; Max-Age=604800$`),
    );
    expect(res.body.response).toMatchObject({ object: 'sign_in_attempt', status: 'complete', created_session_id: sessionId });
    expect(res.body.response.id).toMatch(/^sia_/);
    expect(res.body.client).toMatchObject({
      object: 'client',
      last_active_session_id: sessionId,
      session: { id: sessionId, user_id: userA, status: 'active' },
    });
    expect(res.headers.get('authorization')).toBeNull();

    const boot = await b.call('GET', '/v1/client');
    expect(boot.status).toBe(200);
    expect(boot.setCookie).toBeNull();
    expect(boot.body).toMatchObject({
      object: 'client',
      id: res.body.client.id,
      last_active_session_id: sessionId,
      session: { object: 'session', id: sessionId, user_id: userA, status: 'active', impersonated_by: null },
    });
    expect(boot.body.id).toMatch(/^client_/);
    expect(boot.body.sessions.map((s: { id: string }) => s.id)).toEqual([sessionId]);

    // Only the digest of the client token is stored.
    const [row] = await h.runtime.deps.db.select().from(clients).where(eq(clients.id, boot.body.id));
    expect(row!.tokenDigest).toBe(sha256Hex(b.token!));
    expect(JSON.stringify(row)).not.toContain(b.token!);
  });

  it('a second sign-in on the same browser adds a session to the same client and makes it active', async () => {
    const { b, sessionId: first, res } = await signedIn();
    const again = await b.signInWithTicket(await signInToken());
    expect(again.status).toBe(200);
    const second = again.body.response.created_session_id;
    expect(again.body.client.id).toBe(res.body.client.id);
    expect(again.body.client.last_active_session_id).toBe(second);
    expect(again.body.client.sessions.map((s: { id: string }) => s.id)).toEqual([second, first]);
    expect(again.setCookie).toMatch(/^__client=ct_/); // renewed lifetime, same token
    expect(again.setCookie).toContain(b.token!);
  });

  it('accepts the sign-in as a form post', async () => {
    const b = browser();
    const res = await b.call('POST', '/v1/client/sign_ins', { form: { strategy: 'ticket', ticket: await signInToken() } });
    expect(res.status).toBe(200);
    expect(b.token).toMatch(/^ct_/);
  });

  it('refuses unknown strategies and incomplete bodies with a clear 422', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ strategy: 'web3_metamask_signature', identifier: 'a@example.com' }, 'strategy'],
      [{ strategy: 'ticket' }, 'ticket'],
      [{ ticket: 'tkt_x' }, 'identifier'],
      [{}, 'identifier'],
    ];
    for (const [body, param] of cases) {
      const res = await browser().call('POST', '/v1/client/sign_ins', { body });
      expect(res.status).toBe(422);
      expect(res.body.errors[0]).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param } });
    }
    const res = await browser().call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'web3_metamask_signature', identifier: 'a@example.com' },
    });
    expect(res.body.errors[0].message).toBe(
      'strategy: unsupported; supported strategies: password, ticket, enterprise_sso, saml, passkey.',
    );
  });

  it('shows a revoked session no more, but keeps the client', async () => {
    const { b, sessionId, res } = await signedIn();
    await h.call('POST', `/v1/sessions/${sessionId}/revoke`, { key: A.secret });
    const boot = await b.call('GET', '/v1/client');
    expect(boot.body).toMatchObject({ id: res.body.client.id, session: null, sessions: [], last_active_session_id: null });
    expect(boot.setCookie).toBeNull();
  });

  it('DELETE /v1/client ends its sessions, revokes the client and clears the cookie; the old cookie is then cleared too', async () => {
    const { b, sessionId } = await signedIn();
    const old = b.token;
    const out = await b.call('DELETE', '/v1/client');
    expect(out.status).toBe(200);
    expect(out.body).toMatchObject(SIGNED_OUT);
    expect(out.setCookie).toContain('Max-Age=0');
    expect(b.token).toBeNull();
    const session = await h.call('GET', `/v1/sessions/${sessionId}`, { key: A.secret });
    expect(session.body.status).toBe('ended');

    b.token = old; // a copy of the revoked cookie
    const boot = await b.call('GET', '/v1/client');
    expect(boot.status).toBe(200);
    expect(boot.body).toMatchObject(SIGNED_OUT);
    expect(boot.setCookie).toContain('Max-Age=0');
    const token = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    expect(token.status).toBe(401);
  });
});

describe('native clients', () => {
  it('gets its client token in the Authorization header and sends it as a bearer token; no cookie', async () => {
    const { b, sessionId, res } = await signedIn(A, userA, true);
    expect(res.setCookie).toBeNull();
    expect(res.headers.get('authorization')).toMatch(/^Bearer ct_[A-Za-z0-9_-]{43}$/);
    expect(b.token).toMatch(/^ct_/);

    const boot = await b.call('GET', '/v1/client');
    expect(boot.status).toBe(200);
    expect(boot.setCookie).toBeNull();
    expect(boot.body.session.id).toBe(sessionId);

    const token = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    expect(token.status).toBe(200);
    expect(decodeJwt(token.body.jwt)).toMatchObject({ sid: sessionId, sub: userA });
  });

  it('a garbage bearer token is a signed-out visitor, never 401, and sets no cookie', async () => {
    for (const authorization of ['Bearer garbage', 'Basic abc', `Bearer ct_${'y'.repeat(43)}`]) {
      const res = await h.call('GET', `/fapi/${A.instanceId}/v1/client`, {
        headers: { authorization, 'x-publishable-key': A.publishableKey },
      });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject(SIGNED_OUT);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
  });
});

describe('POST /v1/client/sessions/:id/tokens', () => {
  it('mints a jwt for a session of this client, verifiable with the FAPI JWKS, and counts as activity', async () => {
    const { b, sessionId } = await signedIn();
    h.clock.advance(5_000);
    const res = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('token');
    const { payload, protectedHeader } = await jwtVerify(res.body.jwt, fapiJwks(), {
      issuer: `http://localhost:3000/fapi/${A.instanceId}`,
      currentDate: new Date(h.clock.now()),
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({ sub: userA, sid: sessionId, sts: 'active' });
    expect(payload.act).toBeUndefined();
    const session = await h.call('GET', `/v1/sessions/${sessionId}`, { key: A.secret });
    expect(session.body.last_active_at).toBe(h.clock.now());
  });

  it('answers 404 for another client’s or another instance’s session, 401 without a client', async () => {
    const { b } = await signedIn();
    const other = await signedIn();
    const otherInstance = await signedIn(B, userB);
    for (const id of [other.sessionId, otherInstance.sessionId, 'sess_01J0000000000000000000000A', 'nope']) {
      const res = await b.call('POST', `/v1/client/sessions/${id}/tokens`);
      expect(res.status, id).toBe(404);
      expect(res.body.errors[0].code).toBe('NOT_FOUND');
    }
    const anonymous = await browser().call('POST', `/v1/client/sessions/${other.sessionId}/tokens`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.errors[0].code).toBe('UNAUTHENTICATED');
    const garbage = browser();
    garbage.token = 'garbage';
    const g = await garbage.call('POST', `/v1/client/sessions/${other.sessionId}/tokens`);
    expect(g.status).toBe(401);
    expect(g.setCookie).toContain('Max-Age=0');
  });

  it('answers a dead session’s own code', async () => {
    const { b, sessionId } = await signedIn();
    await h.call('POST', `/v1/sessions/${sessionId}/revoke`, { key: A.secret });
    const revoked = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    expect(revoked.status).toBe(401);
    expect(revoked.body.errors[0].code).toBe('SESSION_REVOKED');
  });

  it('mints a jwt with sts=pending for a pending session of the client', async () => {
    const { b, res } = await signedIn();
    const instance = await instanceContext(h.runtime.deps, A.instanceId);
    const { session } = await createSession(
      h.runtime.deps,
      instance,
      { userId: userA, clientId: res.body.client.id, status: 'pending' },
      systemContext('test'),
    );
    const token = await b.call('POST', `/v1/client/sessions/${session.id}/tokens`);
    expect(token.status).toBe(200);
    expect(decodeJwt(token.body.jwt)).toMatchObject({ sid: session.id, sts: 'pending' });
  });
});

describe('POST /v1/sessions/:id/refresh (FAPI)', () => {
  it('exchanges the refresh token, the credential, for a jwt and its successor', async () => {
    const minted = (await h.call('POST', '/v1/sessions', { key: A.secret, body: { user_id: userA } })).body;
    const res = await h.call('POST', `/fapi/${A.instanceId}/v1/sessions/${minted.id}/refresh`, {
      body: { refresh_token: minted.refresh_token },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ expires_in: 60 });
    expect(res.body.refresh_token).toMatch(/^rt_/);
    expect(res.body.refresh_token).not.toBe(minted.refresh_token);
    const { payload } = await jwtVerify(res.body.jwt, fapiJwks(), { currentDate: new Date(h.clock.now()) });
    expect(payload.sid).toBe(minted.id);

    const wrong = await h.call('POST', `/fapi/${A.instanceId}/v1/sessions/${minted.id}/refresh`, { body: { refresh_token: 'rt_nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body.errors[0].code).toBe('REFRESH_TOKEN_INVALID');
    // The successor on another instance's FAPI: not found there.
    const cross = await h.call('POST', `/fapi/${B.instanceId}/v1/sessions/${minted.id}/refresh`, {
      body: { refresh_token: res.body.refresh_token },
    });
    expect(cross.status).toBe(401);
    expect(cross.body.errors[0].code).toBe('REFRESH_TOKEN_INVALID');
    const missing = await h.call('POST', `/fapi/${A.instanceId}/v1/sessions/${minted.id}/refresh`, { body: {} });
    expect(missing.status).toBe(422);
  });
});

describe('GET /.well-known/jwks.json', () => {
  it('publishes the instance keys, publicly and cacheably', async () => {
    const res = await h.call('GET', `/fapi/${A.instanceId}/.well-known/jwks.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=60');
    expect(res.body.keys.length).toBeGreaterThanOrEqual(2);
    for (const k of res.body.keys) {
      expect(k).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
      expect(k).not.toHaveProperty('d');
    }
    const bapi = await h.call('GET', '/v1/jwks', { key: A.secret });
    expect(res.body).toEqual(bapi.body);
    const other = await h.call('GET', `/fapi/${B.instanceId}/.well-known/jwks.json`);
    expect(other.body.keys.map((k: { kid: string }) => k.kid)).not.toContain(res.body.keys[0].kid);
  });
});

describe('client cookie', () => {
  const ctx = (fapiUrl: string): InstanceContext => ({
    id: 'ins_x',
    environment: 'live',
    fapiUrl,
    publishableKey: 'pk_live_x',
    settings: instanceSettings({}),
  });
  it('is Secure except on plain-http localhost, scoped to the fapi_url path', () => {
    expect(clientCookie(ctx('https://id.example.com/fapi/ins_x'), 'ct_t', 60)).toBe(
      '__client=ct_t; Path=/fapi/ins_x; HttpOnly; SameSite=Lax; Secure; Max-Age=60',
    );
    expect(clientCookie(ctx('http://127.0.0.1:3000/fapi/ins_x'), 'ct_t', 60)).not.toContain('Secure');
    expect(clientCookie(ctx('http://example.com/fapi/ins_x'), 'ct_t', 60)).toContain('Secure');
    expect(clearedClientCookie(ctx('https://clerk.example.com'))).toBe('__client=; Path=/; HttpOnly; SameSite=Lax; Secure; Max-Age=0');
  });
});

describe('client and session expiry', () => {
  // Last: moves the clock past sessions' lifetimes.
  it('a session past its lifetime answers SESSION_EXPIRED while a later sign-in keeps the client alive', async () => {
    const { b, sessionId: first } = await signedIn();
    h.clock.advance(86400 * 1000);
    const again = await b.signInWithTicket(await signInToken());
    h.clock.advance(6 * 86400 * 1000);
    const res = await b.call('POST', `/v1/client/sessions/${first}/tokens`);
    expect(res.status).toBe(401);
    expect(res.body.errors[0].code).toBe('SESSION_EXPIRED');
    expect((await h.call('GET', `/v1/sessions/${first}`, { key: A.secret })).body.status).toBe('expired');
    const boot = await b.call('GET', '/v1/client');
    expect(boot.body.sessions.map((s: { id: string }) => s.id)).toEqual([again.body.response.created_session_id]);
  });

  it('a client past the session lifetime since its last sign-in is signed out and its cookie cleared', async () => {
    const { b } = await signedIn();
    h.clock.advance(7 * 86400 * 1000);
    const boot = await b.call('GET', '/v1/client');
    expect(boot.status).toBe(200);
    expect(boot.body).toMatchObject(SIGNED_OUT);
    expect(boot.setCookie).toContain('Max-Age=0');
  });
});

describe('sign-in rate limit', () => {
  const hp = sharedHarness({ env: { TRUST_PROXY: '1' } });
  const P = sharedInstance(hp);

  it('allows 5 sign-in attempts per IP per 10 s, then 429 with Retry-After', async () => {
    const attempt = (ip: string) =>
      hp.call('POST', `/fapi/${P.instanceId}/v1/client/sign_ins`, {
        headers: { 'x-forwarded-for': ip },
        body: { strategy: 'ticket', ticket: 'tkt_x' },
      });
    for (let i = 0; i < 5; i++) expect((await attempt('203.0.113.7')).status).toBe(422);
    const limited = await attempt('203.0.113.7');
    expect(limited.status).toBe(429);
    expect(limited.body.errors[0]).toMatchObject({ code: 'RATE_LIMITED' });
    expect(limited.headers.get('retry-after')).toBeTruthy();
    expect((await attempt('203.0.113.8')).status).toBe(422);
    hp.clock.advance(10_000);
    expect((await attempt('203.0.113.7')).status).toBe(422);
  });
});
