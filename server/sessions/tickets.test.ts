import { and, eq } from 'drizzle-orm';
import { createRemoteJWKSet, customFetch, jwtVerify } from 'jose';
import { beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, events, tickets } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { fapiClient } from '../testing/fapi-client';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { raceTest } from '../testing/races';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);
let userA: string;

beforeAll(async () => {
  userA = (await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: ['t@example.com'] } })).body.id;
});

const browser = (i = A) => fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
const actorToken = (body: Record<string, unknown> = {}, key = A.secret) =>
  h.call('POST', '/v1/actor_tokens', { key, body: { user_id: userA, actor: { sub: 'user_admin' }, ...body } });
const signInToken = (body: Record<string, unknown> = {}, key = A.secret) =>
  h.call('POST', '/v1/sign_in_tokens', { key, body: { user_id: userA, ...body } });
const auditRows = (target: string) =>
  h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, A.instanceId), eq(auditLogs.target, target)));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const expectTicketInvalid = (res: { status: number; body: any }, reason: string) => {
  expect(res.status).toBe(422);
  expect(res.body.errors[0]).toMatchObject({ code: 'TICKET_INVALID', meta: { reason } });
};

describe('actor tokens', () => {
  it('are created with the secret shown once, stored as a digest, and audited', async () => {
    const res = await actorToken();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'actor_token',
      user_id: userA,
      actor: { sub: 'user_admin' },
      status: 'pending',
      expires_at: h.clock.now() + 3600 * 1000,
      created_at: h.clock.now(),
    });
    expect(res.body.id).toMatch(/^act_/);
    expect(res.body.token).toMatch(/^tkt_[A-Za-z0-9_-]{43}$/);
    expect(res.body).not.toHaveProperty('url');
    const [row] = await h.runtime.deps.db.select().from(tickets).where(eq(tickets.id, res.body.id));
    expect(row!.digest).toBe(sha256Hex(res.body.token));
    expect(JSON.stringify(row)).not.toContain(res.body.token);
    const [entry] = await auditRows(res.body.id);
    expect(entry).toMatchObject({ action: 'impersonation.actor_token_created', actor: `key:${A.keyId}` });
    expect(JSON.stringify(entry)).not.toContain(res.body.token);
  });

  it('redeem on FAPI for an impersonation session whose jwts carry act', async () => {
    const created = (await actorToken()).body;
    const b = browser();
    const res = await b.signInWithTicket(created.token);
    expect(res.status).toBe(200);
    const sessionId = res.body.response.created_session_id;
    expect(res.body.client.session).toMatchObject({ id: sessionId, user_id: userA, impersonated_by: 'user_admin' });

    const token = await b.call('POST', `/v1/client/sessions/${sessionId}/tokens`);
    const jwks = createRemoteJWKSet(new URL(`http://localhost:3000/fapi/${A.instanceId}/.well-known/jwks.json`), {
      [customFetch]: (url: string) => h.request('GET', new URL(url).pathname),
    });
    const { payload } = await jwtVerify(token.body.jwt, jwks, { currentDate: new Date(h.clock.now()) });
    expect(payload).toMatchObject({ sub: userA, sid: sessionId, act: { sub: 'user_admin' } });

    const session = await h.call('GET', `/v1/sessions/${sessionId}`, { key: A.secret });
    expect(session.body.impersonated_by).toBe('user_admin');
    const actions = (await auditRows(created.id)).map((r) => r.action).sort();
    expect(actions).toEqual(['impersonation.actor_token_created', 'impersonation.actor_token_redeemed']);
    const [sessionAudit] = await auditRows(sessionId);
    expect(sessionAudit).toMatchObject({ action: 'impersonation.session_created', actor: `ticket:${created.id}` });
  });

  it('are single use: a second redemption fails', async () => {
    const { token } = (await actorToken()).body;
    expect((await browser().signInWithTicket(token)).status).toBe(200);
    expectTicketInvalid(await browser().signInWithTicket(token), 'used');
  });

  raceTest('two racing redemptions: exactly one wins', async () => {
    const { token, id } = (await actorToken()).body;
    const results = await Promise.all([
      browser().signInWithTicket(token),
      browser().signInWithTicket(token),
      browser().signInWithTicket(token),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 422, 422]);
    for (const r of results.filter((x) => x.status === 422)) expectTicketInvalid(r, 'used');
    const redeemed = (await auditRows(id)).filter((r) => r.action === 'impersonation.actor_token_redeemed');
    expect(redeemed).toHaveLength(1);
  });

  it('expire', async () => {
    const { token } = (await actorToken({ expires_in_seconds: 60 })).body;
    h.clock.advance(60_000);
    expectTicketInvalid(await browser().signInWithTicket(token), 'expired');
  });

  it('can be revoked (audited, idempotent); a revoked one is refused and a redeemed one cannot be revoked', async () => {
    const created = (await actorToken()).body;
    const revoked = await h.call('POST', `/v1/actor_tokens/${created.id}/revoke`, { key: A.secret });
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ object: 'actor_token', id: created.id, status: 'revoked' });
    expect(revoked.body).not.toHaveProperty('token');
    expectTicketInvalid(await browser().signInWithTicket(created.token), 'revoked');
    const again = await h.call('POST', `/v1/actor_tokens/${created.id}/revoke`, { key: A.secret });
    expect(again.body.status).toBe('revoked');
    const actions = (await auditRows(created.id)).map((r) => r.action).sort();
    expect(actions).toEqual(['impersonation.actor_token_created', 'impersonation.actor_token_revoked']);

    const used = (await actorToken()).body;
    await browser().signInWithTicket(used.token);
    const conflict = await h.call('POST', `/v1/actor_tokens/${used.id}/revoke`, { key: A.secret });
    expect(conflict.status).toBe(409);
  });

  it('revoke answers 404 for another instance’s, another kind’s or a missing id', async () => {
    const created = (await actorToken()).body;
    const sit = (await signInToken()).body;
    for (const [key, path] of [
      [B.secret, `/v1/actor_tokens/${created.id}/revoke`],
      [A.secret, `/v1/actor_tokens/${sit.id}/revoke`],
      [A.secret, `/v1/sign_in_tokens/${created.id}/revoke`],
      [A.secret, '/v1/actor_tokens/act_01J0000000000000000000000A/revoke'],
    ] as const) {
      const res = await h.call('POST', path, { key });
      expect(res.status, path).toBe(404);
    }
  });

  it('need impersonation:write; input is validated', async () => {
    const limited = await h.createKey(A.instanceId, 'sign_in_tokens:write,users:write');
    const res = await actorToken({}, limited.secret);
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'impersonation:write' } });
    expect((await signInToken({}, limited.secret)).status).toBe(200);
    const noSit = await h.createKey(A.instanceId, 'impersonation:write');
    expect((await signInToken({}, noSit.secret)).body.errors[0].meta.required_scope).toBe('sign_in_tokens:write');

    for (const [body, param] of [
      [{ expires_in_seconds: 7 * 86400 + 1 }, 'expires_in_seconds'],
      [{ expires_in_seconds: 0 }, 'expires_in_seconds'],
      [{ actor: undefined }, 'actor'],
      [{ actor: {} }, 'actor.sub'],
      [{ user_id: 'user_01J0000000000000000000000A' }, 'user_id'],
    ] as const) {
      const bad = await actorToken(body);
      expect(bad.status, JSON.stringify(body)).toBe(422);
      expect(bad.body.errors[0].meta.param).toBe(param);
    }
  });
});

describe('sign-in tokens', () => {
  it('default to 30 days and redeem for an ordinary session', async () => {
    const created = await signInToken();
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({
      object: 'sign_in_token',
      user_id: userA,
      status: 'pending',
      expires_at: h.clock.now() + 30 * 86400 * 1000,
    });
    expect(created.body.id).toMatch(/^sit_/);
    expect(created.body).not.toHaveProperty('actor');
    const res = await browser().signInWithTicket(created.body.token);
    expect(res.status).toBe(200);
    expect(res.body.client.session.impersonated_by).toBeNull();
    const user = await h.call('GET', `/v1/users/${userA}`, { key: A.secret });
    expect(user.body.last_sign_in_at).toBe(h.clock.now());
    const actions = (await auditRows(created.body.id)).map((r) => r.action).sort();
    expect(actions).toEqual(['sign_in_token.created', 'sign_in_token.redeemed']);
    expect((await signInToken({ expires_in_seconds: 30 * 86400 + 1 })).status).toBe(422);
  });

  it('can be revoked', async () => {
    const created = (await signInToken()).body;
    const revoked = await h.call('POST', `/v1/sign_in_tokens/${created.id}/revoke`, { key: A.secret });
    expect(revoked.body).toMatchObject({ object: 'sign_in_token', status: 'revoked' });
    expectTicketInvalid(await browser().signInWithTicket(created.token), 'revoked');
  });
});

describe('redemption', () => {
  it('refuses a ticket of another instance, and garbage', async () => {
    const { token } = (await actorToken()).body;
    expectTicketInvalid(await browser(B).signInWithTicket(token), 'invalid');
    expectTicketInvalid(await browser().signInWithTicket('tkt_nope'), 'invalid');
    expectTicketInvalid(await browser().signInWithTicket(`tkt_${'z'.repeat(43)}`), 'invalid');
    // Still redeemable where it belongs.
    expect((await browser().signInWithTicket(token)).status).toBe(200);
  });

  it('refuses a banned user with USER_BANNED and leaves the ticket pending; no client is created', async () => {
    const user = (await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: ['banned@example.com'] } })).body.id;
    const { token } = (await actorToken({ user_id: user })).body;
    await h.call('POST', `/v1/users/${user}/ban`, { key: A.secret });
    const b = browser();
    const res = await b.signInWithTicket(token);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('USER_BANNED');
    expect(res.setCookie).toBeNull();
    expect(b.token).toBeNull();
    expect((await actorToken({ user_id: user })).body.errors[0].code).toBe('USER_BANNED');
    await h.call('POST', `/v1/users/${user}/unban`, { key: A.secret });
    expect((await b.signInWithTicket(token)).status).toBe(200);
  });

  it('refuses a ticket of a deleted user', async () => {
    const user = (await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: ['gone@example.com'] } })).body.id;
    const { token } = (await signInToken({ user_id: user })).body;
    await h.call('DELETE', `/v1/users/${user}`, { key: A.secret });
    expectTicketInvalid(await browser().signInWithTicket(token), 'invalid');
  });

  it('emits session.created for the new session in the same transaction', async () => {
    const { token } = (await signInToken()).body;
    const res = await browser().signInWithTicket(token);
    const sid = res.body.response.created_session_id;
    const rows = await h.runtime.deps.db
      .select()
      .from(events)
      .where(and(eq(events.instanceId, A.instanceId), eq(events.type, 'session.created')));
    expect(rows.some((e) => (e.data as { id: string }).id === sid)).toBe(true);
  });
});
