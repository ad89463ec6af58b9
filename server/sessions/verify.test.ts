import { systemContext } from '../http/actor';
import { decodeProtectedHeader, exportJWK, generateKeyPair, SignJWT } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { instanceWith } from '../testing/auth-flows';
import { mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { applySessionAction } from './sessions';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
let key: string;
let instanceId: string;
let fapiUrl: string;
beforeAll(async () => {
  ({ secret: key, instanceId } = await h.createInstance());
  fapiUrl = `http://localhost:3000/fapi/${instanceId}`;
});

const errorOf = (body: { errors: { code: string }[] }) => body.errors[0]!;
const verify = (token: string, k = key) => h.call('POST', '/v1/sessions/verify', { key: k, body: { token } });

const mint = (k = key) => mintNewUserSession(h, k);

/** Replaces one character in the middle of a segment (0 header, 1 payload, 2 signature). */
function tamper(jwt: string, segment: number): string {
  const parts = jwt.split('.');
  const s = parts[segment]!;
  const i = Math.floor(s.length / 2);
  parts[segment] = s.slice(0, i) + (s[i] === 'A' ? 'B' : 'A') + s.slice(i + 1);
  return parts.join('.');
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

describe('POST /v1/sessions/verify', () => {
  it('a valid jwt: 200 with the session', async () => {
    const s = await mint();
    const res = await verify(s.jwt);
    expect(res.status).toBe(200);
    expect(res.body).toEqual((await h.call('GET', `/v1/sessions/${s.id}`, { key })).body);
    expect(res.body).toMatchObject({ object: 'session', id: s.id, user_id: s.user_id, status: 'active' });
  });

  it('an expired jwt: TOKEN_EXPIRED', async () => {
    const s = await mint();
    h.clock.advance(59_000);
    expect((await verify(s.jwt)).status).toBe(200);
    h.clock.advance(2_000);
    const res = await verify(s.jwt);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('TOKEN_EXPIRED');
  });

  it('a tampered signature or payload: TOKEN_INVALID', async () => {
    const s = await mint();
    for (const token of [tamper(s.jwt, 2), tamper(s.jwt, 1)]) {
      const res = await verify(token);
      expect(res.status).toBe(401);
      expect(errorOf(res.body).code).toBe('TOKEN_INVALID');
    }
    // A payload naming another session, under the original signature.
    const [header, payload, signature] = s.jwt.split('.');
    const other = await mint();
    const claims = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sid: other.id, sub: other.user_id };
    expect(errorOf((await verify(`${header}.${b64(claims)}.${signature}`)).body).code).toBe('TOKEN_INVALID');
    // An altered issuer under one of our kids is a forgery, not another instance's token.
    const reissued = { ...claims, iss: 'http://localhost:3000/fapi/ins_01JAAAAAAAAAAAAAAAAAAAAAAA' };
    expect(errorOf((await verify(`${header}.${b64(reissued)}.${signature}`)).body).code).toBe('TOKEN_INVALID');
  });

  it('garbage: TOKEN_INVALID', async () => {
    for (const token of ['garbage', 'a.b.c', `${b64({ alg: 'RS256' })}.${b64({ iss: fapiUrl })}`, '...']) {
      const res = await verify(token);
      expect(res.status, token).toBe(401);
      expect(errorOf(res.body).code, token).toBe('TOKEN_INVALID');
    }
  });

  it('alg none or HS256 under a published kid: TOKEN_INVALID', async () => {
    const s = await mint();
    const { kid } = decodeProtectedHeader(s.jwt);
    const payload = s.jwt.split('.')[1];
    const none = `${b64({ alg: 'none', kid, typ: 'JWT' })}.${payload}.`;
    expect(errorOf((await verify(none)).body).code).toBe('TOKEN_INVALID');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const hs = await new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid }).sign(new TextEncoder().encode('x'.repeat(32)));
    expect(errorOf((await verify(hs)).body).code).toBe('TOKEN_INVALID');
  });

  it('a jwt of another instance: TOKEN_WRONG_INSTANCE', async () => {
    const other = await h.createInstance();
    const s = await mint(other.secret);
    expect((await verify(s.jwt, other.secret)).status).toBe(200);
    const res = await verify(s.jwt);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('TOKEN_WRONG_INSTANCE');
  });

  it('a jwt whose kid is not published (or that has none): TOKEN_UNKNOWN_KEY', async () => {
    const s = await mint();
    const { payload } = { payload: JSON.parse(Buffer.from(s.jwt.split('.')[1]!, 'base64url').toString()) };
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256', kid: 'kid_01JAAAAAAAAAAAAAAAAAAAAAAA' }).sign(privateKey);
    const res = await verify(forged);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('TOKEN_UNKNOWN_KEY');
    const noKid = await new SignJWT(payload).setProtectedHeader({ alg: 'RS256' }).sign(privateKey);
    expect(errorOf((await verify(noKid)).body).code).toBe('TOKEN_UNKNOWN_KEY');
    // Our own key under a kid we publish would be another matter: the JWKS does not list this one.
    const published = (await h.call('GET', '/v1/jwks', { key })).body.keys.map((k: { n: string }) => k.n);
    expect(published).not.toContain((await exportJWK(publicKey)).n);
  });

  it('a valid jwt of an ended, revoked or removed session: SESSION_ENDED / SESSION_REVOKED / SESSION_REMOVED', async () => {
    for (const [action, code] of [
      ['end', 'SESSION_ENDED'],
      ['revoke', 'SESSION_REVOKED'],
      ['remove', 'SESSION_REMOVED'],
    ] as const) {
      const s = await mint();
      await applySessionAction(h.runtime.deps, instanceId, s.id, action, systemContext('test'));
      const res = await verify(s.jwt);
      expect(res.status, action).toBe(401);
      expect(errorOf(res.body).code).toBe(code);
    }
  });

  it('a jwt ends with its session (TOKEN_EXPIRED), and one that outlives an idle session is SESSION_ABANDONED', async () => {
    const expiring = await instanceWith(h, { session_lifetime_seconds: 300, session_token_lifetime_seconds: 3600 });
    const s = await mint(expiring.secret);
    h.clock.advance(300_000);
    const res = await verify(s.jwt, expiring.secret);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('TOKEN_EXPIRED');

    const idle = await instanceWith(h, { session_inactivity_timeout_seconds: 300, session_token_lifetime_seconds: 3600 });
    const t = await mint(idle.secret);
    h.clock.advance(300_000);
    expect(errorOf((await verify(t.jwt, idle.secret)).body).code).toBe('SESSION_ABANDONED');
  });

  it('validates the body and needs sessions:read', async () => {
    const missing = await h.call('POST', '/v1/sessions/verify', { key, body: {} });
    expect(missing.status).toBe(422);
    expect(errorOf(missing.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'token', reason: 'required' } });
    const s = await mint();
    const events = await h.createKey(instanceId, 'events:read');
    const denied = await verify(s.jwt, events.secret);
    expect(denied.status).toBe(403);
    expect(errorOf(denied.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sessions:read' } });
    const reader = await h.createKey(instanceId, 'sessions:read');
    expect((await verify(s.jwt, reader.secret)).status).toBe(200);
  });
});
