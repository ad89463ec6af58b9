import { systemContext } from '../http/actor';
import { and, eq } from 'drizzle-orm';
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { instanceWith } from '../testing/auth-flows';
import { eventsOf, mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { REFRESH_GRACE_MS, applySessionAction } from './sessions';
import { raceTest } from '../testing/races';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
let key: string;
let instanceId: string;
beforeAll(async () => {
  ({ secret: key, instanceId } = await h.createInstance());
});

const DAY = 86_400_000;
const errorOf = (body: { errors: { code: string }[] }) => body.errors[0]!;

const mint = (k = key) => mintNewUserSession(h, k);
const refresh = (id: string, token: string, k = key) =>
  h.call('POST', `/v1/sessions/${id}/refresh`, { key: k, body: { refresh_token: token } });
const getSession = async (id: string, k = key) => (await h.call('GET', `/v1/sessions/${id}`, { key: k })).body;
const eventsFor = async (instance: string, type: string, sessionId: string) =>
  (await eventsOf(h, instance, type)).filter((e) => e.data.id === sessionId);
const jwks = (k = key) =>
  createRemoteJWKSet(new URL('http://localhost:3000/v1/jwks'), {
    [customFetch]: (url: string) => h.request('GET', new URL(url).pathname, { key: k }),
  });

describe('refresh: rotation', () => {
  it('answers a jwt and a new refresh token, and moves last_active_at', async () => {
    const s = await mint();
    h.clock.advance(5_000);
    const res = await refresh(s.id, s.refresh_token);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expires_in', 'jwt', 'refresh_token']);
    expect(res.body.refresh_token).toMatch(/^rt_[A-Za-z0-9_-]{20,100}$/);
    expect(res.body.refresh_token).not.toBe(s.refresh_token);
    expect(res.body.expires_in).toBe(60);
    const { payload } = await jwtVerify(res.body.jwt, jwks(), { currentDate: new Date(h.clock.now()) });
    expect(payload).toMatchObject({ sub: s.user_id, sid: s.id, sts: 'active', iat: Math.floor(h.clock.now() / 1000) });

    const after = await getSession(s.id);
    expect(after.last_active_at).toBe(h.clock.now());
    expect(after.last_active_at).toBeGreaterThan(s.created_at);
    expect(after.expire_at).toBe(s.expire_at);

    // The successor rotates in turn.
    h.clock.advance(1_000);
    const next = await refresh(s.id, res.body.refresh_token);
    expect(next.status).toBe(200);
    expect(next.body.refresh_token).not.toBe(res.body.refresh_token);
    expect((await getSession(s.id)).last_active_at).toBe(h.clock.now());
  });

  it('within the grace window, the rotated token gets the same successor (and the session stays active)', async () => {
    const s = await mint();
    const first = await refresh(s.id, s.refresh_token);
    h.clock.advance(REFRESH_GRACE_MS);
    const retry = await refresh(s.id, s.refresh_token);
    expect(retry.status).toBe(200);
    expect(retry.body.refresh_token).toBe(first.body.refresh_token);
    expect((await getSession(s.id)).status).toBe('active');
    expect(await eventsFor(instanceId, 'session.revoked', s.id)).toEqual([]);
    // The shared successor is the live token.
    expect((await refresh(s.id, first.body.refresh_token)).status).toBe(200);
  });

  raceTest('two concurrent refreshes with one token get the same successor', async () => {
    const s = await mint();
    const [a, b] = await Promise.all([refresh(s.id, s.refresh_token), refresh(s.id, s.refresh_token)]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.refresh_token).toBe(b.body.refresh_token);
    expect((await getSession(s.id)).status).toBe('active');
    expect((await refresh(s.id, a.body.refresh_token)).status).toBe(200);
  });

  it('after the grace window, a rotated token is reuse: 401 REFRESH_TOKEN_REUSED and the session is revoked', async () => {
    const s = await mint();
    const first = await refresh(s.id, s.refresh_token);
    h.clock.advance(REFRESH_GRACE_MS + 1);
    const reused = await refresh(s.id, s.refresh_token);
    expect(reused.status).toBe(401);
    expect(errorOf(reused.body).code).toBe('REFRESH_TOKEN_REUSED');

    expect((await getSession(s.id)).status).toBe('revoked');
    const revoked = await eventsFor(instanceId, 'session.revoked', s.id);
    expect(revoked).toHaveLength(1);
    expect(revoked[0]!.data.status).toBe('revoked');
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'session.revoked'), eq(auditLogs.target, s.id)));
    expect(entry).toMatchObject({ instanceId, actor: 'system:refresh_token_reuse' });

    // Whoever holds the successor is signed out too, and the old jwts fail verification.
    const successor = await refresh(s.id, first.body.refresh_token);
    expect(successor.status).toBe(401);
    expect(errorOf(successor.body).code).toBe('SESSION_REVOKED');
    const verify = await h.call('POST', '/v1/sessions/verify', { key, body: { token: first.body.jwt } });
    expect(errorOf(verify.body).code).toBe('SESSION_REVOKED');
  });
});

describe('refresh: refused', () => {
  it('an ended session: SESSION_ENDED', async () => {
    const s = await mint();
    await applySessionAction(h.runtime.deps, instanceId, s.id, 'end', systemContext('test'));
    const res = await refresh(s.id, s.refresh_token);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('SESSION_ENDED');
  });

  it('a revoked session: SESSION_REVOKED', async () => {
    const s = await mint();
    await h.call('POST', `/v1/sessions/${s.id}/revoke`, { key });
    const res = await refresh(s.id, s.refresh_token);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('SESSION_REVOKED');
  });

  it('a removed session: SESSION_REMOVED', async () => {
    const s = await mint();
    await applySessionAction(h.runtime.deps, instanceId, s.id, 'remove', systemContext('test'));
    const res = await refresh(s.id, s.refresh_token);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('SESSION_REMOVED');
  });

  it('an unknown, malformed or another session’s refresh token: REFRESH_TOKEN_INVALID', async () => {
    const s = await mint();
    const other = await mint();
    for (const token of [`rt_${'A'.repeat(43)}`, 'not-a-token', other.refresh_token]) {
      const res = await refresh(s.id, token);
      expect(res.status, token).toBe(401);
      expect(errorOf(res.body).code).toBe('REFRESH_TOKEN_INVALID');
    }
    const unknownSession = await refresh('sess_01JAAAAAAAAAAAAAAAAAAAAAAA', s.refresh_token);
    expect(errorOf(unknownSession.body).code).toBe('REFRESH_TOKEN_INVALID');
    // None of that harmed either session.
    expect((await refresh(s.id, s.refresh_token)).status).toBe(200);
    expect((await refresh(other.id, other.refresh_token)).status).toBe(200);
  });

  it('validates the body and needs sessions:write', async () => {
    const s = await mint();
    const missing = await h.call('POST', `/v1/sessions/${s.id}/refresh`, { key, body: {} });
    expect(missing.status).toBe(422);
    expect(errorOf(missing.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'refresh_token', reason: 'required' } });
    const reader = await h.createKey(instanceId, 'sessions:read');
    const denied = await refresh(s.id, s.refresh_token, reader.secret);
    expect(denied.status).toBe(403);
    expect(errorOf(denied.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sessions:write' } });
  });
});

describe('lifetime and inactivity', () => {
  it('past expire_at (default 7 days): SESSION_EXPIRED, and the session becomes expired', async () => {
    const s = await mint();
    expect(s.expire_at).toBe(s.created_at + 7 * DAY);
    h.clock.advance(7 * DAY);
    const res = await refresh(s.id, s.refresh_token);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('SESSION_EXPIRED');
    expect((await getSession(s.id)).status).toBe('expired');
    // Asking again answers the same.
    expect(errorOf((await refresh(s.id, s.refresh_token)).body).code).toBe('SESSION_EXPIRED');
  });

  it('session_lifetime_seconds drives expire_at, and refreshing does not extend it', async () => {
    const inst = await instanceWith(h, { session_lifetime_seconds: 600 });
    const s = await mint(inst.secret);
    expect(s.expire_at).toBe(s.created_at + 600_000);
    expect(s.abandon_at).toBe(s.expire_at);
    h.clock.advance(590_000);
    const ok = await refresh(s.id, s.refresh_token, inst.secret);
    expect(ok.status).toBe(200);
    expect((await getSession(s.id, inst.secret)).expire_at).toBe(s.created_at + 600_000);
    h.clock.advance(10_000);
    const res = await refresh(s.id, ok.body.refresh_token, inst.secret);
    expect(errorOf(res.body).code).toBe('SESSION_EXPIRED');
    expect((await getSession(s.id, inst.secret)).status).toBe('expired');
  });

  it('session_inactivity_timeout_seconds drives abandon_at; each refresh pushes it; idle too long: SESSION_ABANDONED', async () => {
    const inst = await instanceWith(h, { session_lifetime_seconds: 3600, session_inactivity_timeout_seconds: 300 });
    const s = await mint(inst.secret);
    expect(s.abandon_at).toBe(s.created_at + 300_000);
    expect(s.expire_at).toBe(s.created_at + 3_600_000);

    h.clock.advance(200_000);
    const first = await refresh(s.id, s.refresh_token, inst.secret);
    expect(first.status).toBe(200);
    expect((await getSession(s.id, inst.secret)).abandon_at).toBe(h.clock.now() + 300_000);

    h.clock.advance(299_000); // 499 s after creation: past the first abandon_at, within the pushed one
    const second = await refresh(s.id, first.body.refresh_token, inst.secret);
    expect(second.status).toBe(200);

    h.clock.advance(300_000);
    const idle = await refresh(s.id, second.body.refresh_token, inst.secret);
    expect(idle.status).toBe(401);
    expect(errorOf(idle.body).code).toBe('SESSION_ABANDONED');
    expect((await getSession(s.id, inst.secret)).status).toBe('abandoned');
  });

  it('idle past abandon_at and later past expire_at too: abandoned, the deadline it missed first', async () => {
    const inst = await instanceWith(h, { session_lifetime_seconds: 600, session_inactivity_timeout_seconds: 300 });
    const s = await mint(inst.secret);
    h.clock.advance(700_000);
    const res = await refresh(s.id, s.refresh_token, inst.secret);
    expect(res.status).toBe(401);
    expect(errorOf(res.body).code).toBe('SESSION_ABANDONED');
    expect((await getSession(s.id, inst.secret)).status).toBe('abandoned');
  });

  it('abandon_at never passes expire_at', async () => {
    const inst = await instanceWith(h, { session_lifetime_seconds: 400, session_inactivity_timeout_seconds: 300 });
    const s = await mint(inst.secret);
    h.clock.advance(200_000);
    const ok = await refresh(s.id, s.refresh_token, inst.secret);
    expect(ok.status).toBe(200);
    const after = await getSession(s.id, inst.secret);
    expect(after.abandon_at).toBe(s.expire_at);
    h.clock.advance(200_000);
    expect(errorOf((await refresh(s.id, ok.body.refresh_token, inst.secret)).body).code).toBe('SESSION_EXPIRED');
  });

  it('the jwt of a refreshed session says so in sts and sv', async () => {
    const s = await mint();
    const res = await refresh(s.id, s.refresh_token);
    expect(decodeJwt(res.body.jwt)).toMatchObject({ sts: 'active', sv: 1, sid: s.id });
  });
});

describe('jwt lifetime', () => {
  it('never outlives its session', async () => {
    const inst = await instanceWith(h, { session_lifetime_seconds: 300, session_token_lifetime_seconds: 3600 });
    const session = await mint(inst.secret);
    const claims = decodeJwt(session.jwt);
    expect(claims.exp).toBe(Math.floor(session.expire_at / 1000));
    expect((session as unknown as { expires_in: number }).expires_in).toBeLessThanOrEqual(300);
  });
});
