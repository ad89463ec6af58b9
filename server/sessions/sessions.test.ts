import { systemContext } from '../http/actor';
import { and, asc, eq } from 'drizzle-orm';
import { createRemoteJWKSet, customFetch, decodeJwt, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, refreshTokens } from '../db/schema';
import { eventsOf } from '../testing/fapi-helpers';
import { sharedHarness } from '../testing/harness';
import { applySessionAction } from './sessions';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000', TRUST_PROXY: '1' } });
let key: string;
let keyId: string;
let instanceId: string;
let userId: string;
beforeAll(async () => {
  ({ secret: key, keyId, instanceId } = await h.createInstance());
  userId = (await h.call('POST', '/v1/users', { key, body: { email_address: ['s@example.com'] } })).body.id;
});

/** A customer's server: verifies jwts against the served JWKS. */
const jwks = (k = key) =>
  createRemoteJWKSet(new URL('http://localhost:3000/v1/jwks'), {
    [customFetch]: (url: string) => h.request('GET', new URL(url).pathname, { key: k }),
  });

const CONTRACT_FIELDS = [
  'abandon_at',
  'created_at',
  'expire_at',
  'id',
  'impersonated_by',
  'last_active_at',
  'last_active_organization_id',
  'latest_activity',
  'lti',
  'object',
  'status',
  'user_id',
];
const DAY = 86_400_000;

const newUser = async (k = key, email = `u${Math.random().toString(36).slice(2)}@example.com`) =>
  (await h.call('POST', '/v1/users', { key: k, body: { email_address: [email] } })).body.id as string;
const mint = (user: string, k = key) => h.call('POST', '/v1/sessions', { key: k, body: { user_id: user } });
const auditOf = (instance: string, action: string) =>
  h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, instance), eq(auditLogs.action, action)))
    .orderBy(asc(auditLogs.id));
const withoutTokens = ({ jwt: _j, refresh_token: _r, expires_in: _e, ...session }: Record<string, unknown>) => session;
const errorOf = (body: { errors: { code: string }[] }) => body.errors[0]!;

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

    const refreshed = await h.call('POST', `/v1/sessions/${minted.body.id}/refresh`, {
      key,
      body: { refresh_token: minted.body.refresh_token },
    });
    expect(refreshed.status).toBe(200);
    expect(refreshed.body.refresh_token).not.toBe(minted.body.refresh_token);

    const revoked = await h.call('POST', `/v1/sessions/${minted.body.id}/revoke`, { key });
    expect(revoked.body.status).toBe('revoked');
    const after = await h.call('POST', '/v1/sessions/verify', { key, body: { token: refreshed.body.jwt } });
    expect(after.status).toBe(401);
    expect(after.body.errors[0].code).toBe('SESSION_REVOKED');
  });
});

describe('POST /v1/sessions (mint)', () => {
  it('answers the session with exactly the contract fields plus jwt, refresh_token, expires_in', async () => {
    const user = await newUser();
    const now = h.clock.now();
    const res = await mint(user);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual([...CONTRACT_FIELDS, 'expires_in', 'jwt', 'refresh_token'].sort());
    expect(res.body).toEqual({
      object: 'session',
      id: expect.stringMatching(/^sess_[0-9A-HJKMNP-TV-Z]{26}$/),
      user_id: user,
      status: 'active',
      last_active_organization_id: null,
      impersonated_by: null,
      last_active_at: now,
      expire_at: now + 7 * DAY,
      abandon_at: now + 7 * DAY,
      created_at: now,
      latest_activity: null,
      lti: null,
      jwt: expect.any(String),
      refresh_token: expect.stringMatching(/^rt_[A-Za-z0-9_-]{43}$/),
      expires_in: 60,
    });
    const claims = decodeJwt(res.body.jwt);
    expect(claims).toMatchObject({ sub: user, sid: res.body.id, sts: 'active', sv: 1, iss: `http://localhost:3000/fapi/${instanceId}` });
    expect(claims.exp! - claims.iat!).toBe(60);
    expect(claims.act).toBeUndefined();
    expect(claims.lti).toBeUndefined();
  });

  it('writes session.created with the session (no credentials) and stores the refresh token only as a digest', async () => {
    const res = await mint(await newUser());
    const created = (await eventsOf(h, instanceId, 'session.created')).filter((e) => e.data.id === res.body.id);
    expect(created).toHaveLength(1);
    expect(created[0]!.data).toEqual(withoutTokens(res.body));
    const stored = await h.runtime.deps.db.select().from(refreshTokens).where(eq(refreshTokens.sessionId, res.body.id));
    expect(stored).toHaveLength(1);
    expect(JSON.stringify(stored)).not.toContain(res.body.refresh_token);
    // A plain mint is not an impersonation: the router's session.created entry only.
    expect((await auditOf(instanceId, 'impersonation.session_created')).filter((a) => a.target === res.body.id)).toEqual([]);
    expect((await auditOf(instanceId, 'session.created')).filter((a) => a.target === res.body.id)).toMatchObject([
      { actor: `key:${keyId}`, actorKind: 'secret_key' },
    ]);
  });

  it('refuses a banned user with 403 USER_BANNED and creates nothing', async () => {
    const user = await newUser();
    expect((await h.call('POST', `/v1/users/${user}/ban`, { key })).status).toBe(200);
    const res = await mint(user);
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'USER_BANNED', meta: { user_id: user } });
    expect((await h.call('GET', `/v1/sessions?user_id=${user}`, { key })).body.data).toEqual([]);
    expect((await eventsOf(h, instanceId, 'session.created')).filter((e) => e.data.user_id === user)).toEqual([]);
  });

  it('refuses a deleted, unknown or other-instance user with 422 naming user_id', async () => {
    const deleted = await newUser();
    expect((await h.call('DELETE', `/v1/users/${deleted}`, { key })).status).toBe(200);
    const other = await h.createInstance();
    const foreign = await newUser(other.secret);
    for (const id of [deleted, 'user_01JAAAAAAAAAAAAAAAAAAAAAAA', foreign]) {
      const res = await mint(id);
      expect(res.status, id).toBe(422);
      expect(errorOf(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'user_id', reason: 'not_found' } });
    }
    const missing = await h.call('POST', '/v1/sessions', { key, body: {} });
    expect(missing.status).toBe(422);
    expect(errorOf(missing.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'user_id', reason: 'required' } });
  });

  it('needs sessions:write', async () => {
    const readOnly = await h.createKey(instanceId, 'sessions:read');
    const res = await mint(userId, readOnly.secret);
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sessions:write' } });
  });
});

describe('impersonation (mint with actor)', () => {
  it('without impersonation:write: 403 SCOPE_MISSING naming impersonation:write, and no session', async () => {
    const user = await newUser();
    const writer = await h.createKey(instanceId, 'sessions:write');
    const res = await h.call('POST', '/v1/sessions', { key: writer.secret, body: { user_id: user, actor: { sub: 'user_support' } } });
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'impersonation:write' } });
    expect((await h.call('GET', `/v1/sessions?user_id=${user}`, { key })).body.data).toEqual([]);
  });

  it('with the scope: impersonated_by, the act claim in every jwt, and an audit entry', async () => {
    const user = await newUser();
    const impersonator = await h.createKey(instanceId, 'sessions:write,impersonation:write');
    const res = await h.call('POST', '/v1/sessions', {
      key: impersonator.secret,
      body: { user_id: user, actor: { sub: 'user_support' } },
      headers: { 'user-agent': 'support-console/1.0', 'x-forwarded-for': '203.0.113.7' },
    });
    expect(res.status).toBe(200);
    expect(res.body.impersonated_by).toBe('user_support');
    const { payload } = await jwtVerify(res.body.jwt, jwks(), { currentDate: new Date(h.clock.now()) });
    expect(payload).toMatchObject({ sub: user, sid: res.body.id, act: { sub: 'user_support' } });

    const entries = (await auditOf(instanceId, 'impersonation.session_created')).filter((a) => a.target === res.body.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: `key:${impersonator.id}`,
      ip: '203.0.113.7',
      userAgent: 'support-console/1.0',
      details: { user_id: user, actor: { sub: 'user_support' } },
      createdAt: h.clock.now(),
    });

    // A refreshed jwt still names the actor, and verification answers impersonated_by.
    const refreshed = await h.call('POST', `/v1/sessions/${res.body.id}/refresh`, { key, body: { refresh_token: res.body.refresh_token } });
    expect(decodeJwt(refreshed.body.jwt).act).toEqual({ sub: 'user_support' });
    const verified = await h.call('POST', '/v1/sessions/verify', { key, body: { token: refreshed.body.jwt } });
    expect(verified.body.impersonated_by).toBe('user_support');
    expect((await h.call('GET', `/v1/sessions/${res.body.id}`, { key })).body.impersonated_by).toBe('user_support');
  });

  it('validates the actor', async () => {
    const res = await h.call('POST', '/v1/sessions', { key, body: { user_id: userId, actor: { name: 'x' } } });
    expect(res.status).toBe(422);
    expect(errorOf(res.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'actor.sub' } });
  });
});

describe('GET /v1/sessions and /v1/sessions/:id', () => {
  it('lists newest first, filtered by user_id and status, with a stable cursor', async () => {
    const a = await newUser();
    const b = await newUser();
    const s1 = (await mint(a)).body;
    const s2 = (await mint(a)).body;
    const s3 = (await mint(a)).body;
    await mint(b);
    await h.call('POST', `/v1/sessions/${s2.id}/revoke`, { key });

    const all = await h.call('GET', `/v1/sessions?user_id=${a}`, { key });
    expect(all.status).toBe(200);
    expect(all.body.data.map((s: { id: string }) => s.id)).toEqual([s3.id, s2.id, s1.id]);
    expect(all.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(Object.keys(all.body.data[0]).sort()).toEqual(CONTRACT_FIELDS);

    const active = await h.call('GET', `/v1/sessions?user_id=${a}&status=active`, { key });
    expect(active.body.data.map((s: { id: string }) => s.id)).toEqual([s3.id, s1.id]);
    const revoked = await h.call('GET', `/v1/sessions?user_id=${a}&status=revoked`, { key });
    expect(revoked.body.data.map((s: { id: string; status: string }) => [s.id, s.status])).toEqual([[s2.id, 'revoked']]);

    const page1 = await h.call('GET', `/v1/sessions?user_id=${a}&limit=2`, { key });
    expect(page1.body.data.map((s: { id: string }) => s.id)).toEqual([s3.id, s2.id]);
    expect(page1.body).toMatchObject({ has_more: true, next_cursor: s2.id });
    const page2 = await h.call('GET', `/v1/sessions?user_id=${a}&limit=2&starting_after=${page1.body.next_cursor}`, { key });
    expect(page2.body).toEqual({ data: [expect.objectContaining({ id: s1.id })], has_more: false, next_cursor: null });

    // Unfiltered: every session of this instance, none of another's.
    const other = await h.createInstance();
    await mint(await newUser(other.secret), other.secret);
    const otherList = await h.call('GET', '/v1/sessions', { key: other.secret });
    expect(otherList.body.data).toHaveLength(1);
    const mine = await h.call('GET', '/v1/sessions?limit=100', { key });
    expect(mine.body.data.every((s: { id: string }) => s.id !== otherList.body.data[0].id)).toBe(true);
  });

  it('refuses a bad status or limit with 422 naming the parameter', async () => {
    const bad = await h.call('GET', '/v1/sessions?status=zombie', { key });
    expect(bad.status).toBe(422);
    expect(errorOf(bad.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'status' } });
    const badLimit = await h.call('GET', '/v1/sessions?limit=0', { key });
    expect(errorOf(badLimit.body)).toMatchObject({ code: 'VALIDATION_FAILED', meta: { param: 'limit' } });
  });

  it('gets one session; another instance’s id is 404 NOT_FOUND with the same body as a missing one', async () => {
    const minted = (await mint(await newUser())).body;
    const got = await h.call('GET', `/v1/sessions/${minted.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(withoutTokens(minted));

    const other = await h.createInstance();
    const foreign = await h.call('GET', `/v1/sessions/${minted.id}`, { key: other.secret });
    const missing = await h.call('GET', '/v1/sessions/sess_01JAAAAAAAAAAAAAAAAAAAAAAA', { key: other.secret });
    expect(foreign.status).toBe(404);
    expect(missing.status).toBe(404);
    expect(errorOf(foreign.body).code).toBe('NOT_FOUND');
    const strip = ({ trace_id: _t, ...rest }: Record<string, unknown>) => rest;
    expect(strip(foreign.body)).toEqual(strip(missing.body));

    // Nor can the other instance revoke or refresh it.
    const revoke = await h.call('POST', `/v1/sessions/${minted.id}/revoke`, { key: other.secret });
    expect(revoke.status).toBe(404);
    expect(strip(revoke.body)).toEqual(
      strip((await h.call('POST', '/v1/sessions/sess_01JAAAAAAAAAAAAAAAAAAAAAAA/revoke', { key: other.secret })).body),
    );
    const refresh = await h.call('POST', `/v1/sessions/${minted.id}/refresh`, {
      key: other.secret,
      body: { refresh_token: minted.refresh_token },
    });
    expect(errorOf(refresh.body).code).toBe('REFRESH_TOKEN_INVALID');
    expect((await h.call('GET', `/v1/sessions/${minted.id}`, { key })).body.status).toBe('active');
  });
});

describe('POST /v1/sessions/:id/revoke', () => {
  it('revokes with session.revoked and an audit entry; revoking again is 409 CONFLICT', async () => {
    const minted = (await mint(await newUser())).body;
    const res = await h.call('POST', `/v1/sessions/${minted.id}/revoke`, { key, headers: { 'user-agent': 'ops-script' } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...withoutTokens(minted), status: 'revoked' });

    const revokedEvents = (await eventsOf(h, instanceId, 'session.revoked')).filter((e) => e.data.id === minted.id);
    expect(revokedEvents.map((e) => e.data)).toEqual([res.body]);
    const entries = (await auditOf(instanceId, 'session.revoked')).filter((a) => a.target === minted.id);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: `key:${keyId}`, userAgent: 'ops-script' });

    const again = await h.call('POST', `/v1/sessions/${minted.id}/revoke`, { key });
    expect(again.status).toBe(409);
    expect(errorOf(again.body)).toMatchObject({ code: 'CONFLICT', meta: { status: 'revoked' } });
    expect((await eventsOf(h, instanceId, 'session.revoked')).filter((e) => e.data.id === minted.id)).toHaveLength(1);
  });

  it('an ended session cannot be revoked; a pending one can', async () => {
    const ended = (await mint(await newUser())).body;
    await applySessionAction(h.runtime.deps, instanceId, ended.id, 'end', systemContext('test'));
    expect((await eventsOf(h, instanceId, 'session.ended')).filter((e) => e.data.id === ended.id)).toHaveLength(1);
    const res = await h.call('POST', `/v1/sessions/${ended.id}/revoke`, { key });
    expect(res.status).toBe(409);
    expect(errorOf(res.body)).toMatchObject({ code: 'CONFLICT', meta: { status: 'ended' } });

    const pending = (await mint(await newUser())).body;
    await applySessionAction(h.runtime.deps, instanceId, pending.id, 'pend', systemContext('test'));
    expect((await eventsOf(h, instanceId, 'session.pending')).filter((e) => e.data.id === pending.id)).toHaveLength(1);
    expect((await h.call('POST', `/v1/sessions/${pending.id}/revoke`, { key })).body.status).toBe('revoked');
  });

  it('a refused action says what was refused in plain words', async () => {
    const s = (await mint(await newUser())).body;
    await h.call('POST', `/v1/sessions/${s.id}/revoke`, { key });
    for (const [action, words] of [
      ['pend', 'made pending'],
      ['abandon', 'abandoned'],
      ['activate', 'activated'],
      ['end', 'ended'],
    ] as const) {
      await expect(applySessionAction(h.runtime.deps, instanceId, s.id, action, systemContext('test'))).rejects.toMatchObject({
        code: 'CONFLICT',
        message: `A revoked session cannot be ${words}.`,
      });
    }
  });

  it('needs sessions:write; an unknown id is 404', async () => {
    const minted = (await mint(await newUser())).body;
    const reader = await h.createKey(instanceId, 'sessions:read');
    const res = await h.call('POST', `/v1/sessions/${minted.id}/revoke`, { key: reader.secret });
    expect(res.status).toBe(403);
    expect(errorOf(res.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sessions:write' } });
    expect((await h.call('POST', '/v1/sessions/sess_nope/revoke', { key })).status).toBe(404);
  });
});

describe('a user’s sessions', () => {
  it('GET /v1/users/:id/sessions lists only that user’s sessions; an unknown user is 404', async () => {
    const a = await newUser();
    const s1 = (await mint(a)).body;
    const s2 = (await mint(a)).body;
    await mint(await newUser());
    const res = await h.call('GET', `/v1/users/${a}/sessions`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ data: [withoutTokens(s2), withoutTokens(s1)], has_more: false, next_cursor: null });
    const active = await h.call('GET', `/v1/users/${a}/sessions?status=revoked`, { key });
    expect(active.body.data).toEqual([]);
    const missing = await h.call('GET', '/v1/users/user_01JAAAAAAAAAAAAAAAAAAAAAAA/sessions', { key });
    expect(missing.status).toBe(404);
    expect(errorOf(missing.body).code).toBe('NOT_FOUND');
    const other = await h.createInstance();
    expect((await h.call('GET', `/v1/users/${a}/sessions`, { key: other.secret })).status).toBe(404);
  });

  it('POST /v1/users/:id/sessions/revoke revokes every live session, bumps sessions_version and fails older jwts', async () => {
    const user = await newUser();
    const live1 = (await mint(user)).body;
    const live2 = (await mint(user)).body;
    const ended = (await mint(user)).body;
    await applySessionAction(h.runtime.deps, instanceId, ended.id, 'end', systemContext('test'));
    expect((await h.call('GET', `/v1/users/${user}`, { key })).body.sessions_version).toBe(1);

    const res = await h.call('POST', `/v1/users/${user}/sessions/revoke`, { key });
    expect(res.status).toBe(200);
    expect(res.body.object).toBe('list');
    expect(res.body.has_more).toBe(false);
    expect(res.body.sessions_version).toBe(2);
    expect(res.body.data.map((s: { id: string }) => s.id).sort()).toEqual([live1.id, live2.id].sort());
    expect(res.body.data.every((s: { status: string }) => s.status === 'revoked')).toBe(true);

    const revoked = (await eventsOf(h, instanceId, 'session.revoked')).filter((e) => e.data.user_id === user);
    expect(revoked.map((e) => e.data.id).sort()).toEqual([live1.id, live2.id].sort());
    expect(revoked.every((e) => e.data.status === 'revoked')).toBe(true);
    expect((await h.call('GET', `/v1/sessions/${ended.id}`, { key })).body.status).toBe('ended');

    expect((await h.call('GET', `/v1/users/${user}`, { key })).body.sessions_version).toBe(2);
    const stale = await h.call('POST', '/v1/sessions/verify', { key, body: { token: live1.jwt } });
    expect(stale.status).toBe(401);
    expect(errorOf(stale.body).code).toBe('SESSION_REVOKED');
    const refresh = await h.call('POST', `/v1/sessions/${live2.id}/refresh`, { key, body: { refresh_token: live2.refresh_token } });
    expect(errorOf(refresh.body).code).toBe('SESSION_REVOKED');

    const entries = (await auditOf(instanceId, 'session.revoked_all')).filter((a) => a.target === user);
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ actor: `key:${keyId}`, details: { count: 2, sessions_version: 2 } });

    // A session minted afterwards carries the new version and verifies.
    const fresh = (await mint(user)).body;
    expect(decodeJwt(fresh.jwt).sv).toBe(2);
    expect((await h.call('POST', '/v1/sessions/verify', { key, body: { token: fresh.jwt } })).status).toBe(200);
  });

  it('revoke-all: an unknown or other instance’s user is 404; needs sessions:write', async () => {
    expect((await h.call('POST', '/v1/users/user_01JAAAAAAAAAAAAAAAAAAAAAAA/sessions/revoke', { key })).status).toBe(404);
    const other = await h.createInstance();
    const res = await h.call('POST', `/v1/users/${userId}/sessions/revoke`, { key: other.secret });
    expect(res.status).toBe(404);
    expect(errorOf(res.body).code).toBe('NOT_FOUND');
    expect((await h.call('GET', `/v1/users/${userId}`, { key })).body.sessions_version).toBe(1);
    const reader = await h.createKey(instanceId, 'sessions:read');
    const denied = await h.call('POST', `/v1/users/${userId}/sessions/revoke`, { key: reader.secret });
    expect(errorOf(denied.body)).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sessions:write' } });
  });
});
