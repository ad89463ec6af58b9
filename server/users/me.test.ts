import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { apiTokens } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { fapiClient } from '../testing/fapi-client';
import { createTestUser, eventsOf, signedInClient, type TestInstance } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);
const B = sharedInstance(h);

let n = 0;
const newUser = (i = A) =>
  createTestUser(h, i, {
    email_address: [`me${++n}@example.com`],
    first_name: 'Ada',
    public_metadata: { plan: 'pro' },
    private_metadata: { internal_note: 'vip' },
    unsafe_metadata: { theme: 'dark' },
  });
/** A new user, signed in on a fresh browser. */
const signedInUser = async () => {
  const userId = await newUser();
  return { userId, ...(await signedInClient(h, A, userId)) };
};
const withBearer = (token: string, extra: Record<string, string> = {}) => ({ headers: { authorization: `Bearer ${token}`, ...extra } });
const me = (i: TestInstance = A) => `/fapi/${i.instanceId}/v1/me`;

async function mint(b: ReturnType<typeof fapiClient>, scopes: string[] | string, extra: Record<string, unknown> = {}) {
  return b.call('POST', '/v1/client/me/api_tokens', { body: { name: 'cli', scopes, ...extra } });
}

describe('GET and PATCH /v1/me', () => {
  it('shows the signed-in user without private metadata', async () => {
    const { userId, b } = await signedInUser();
    const res = await b.call('GET', '/v1/me');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'user',
      id: userId,
      first_name: 'Ada',
      public_metadata: { plan: 'pro' },
      unsafe_metadata: { theme: 'dark' },
    });
    expect(res.body).not.toHaveProperty('private_metadata');
    expect(JSON.stringify(res.body)).not.toContain('vip');
  });

  it('updates names, username and unsafe_metadata (merged) and emits user.updated; nothing else', async () => {
    const { userId, b } = await signedInUser();
    const res = await b.call('PATCH', '/v1/me', {
      body: { first_name: 'Grace', last_name: 'Hopper', username: `grace${n}`, unsafe_metadata: { lang: 'en', theme: null } },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', username: `grace${n}`, unsafe_metadata: { lang: 'en' } });
    expect(res.body).not.toHaveProperty('private_metadata');
    const updated = (await eventsOf(h, A.instanceId, 'user.updated')).filter((e) => e.data.id === userId);
    expect(updated).toHaveLength(1);

    for (const body of [
      { public_metadata: { plan: 'free' } },
      { private_metadata: { a: 1 } },
      { password: 'new password 123' },
      { banned: true },
    ]) {
      const refused = await b.call('PATCH', '/v1/me', { body });
      expect(refused.status, JSON.stringify(body)).toBe(422);
    }
    const badName = await b.call('PATCH', '/v1/me', { body: { username: 'x' } });
    expect(badName.status).toBe(422);
    expect(badName.body.errors[0].meta.param).toBe('username');
    // A username taken by another user of the instance.
    const other = await newUser();
    await h.call('PATCH', `/v1/users/${other}`, { key: A.secret, body: { username: `taken${n}` } });
    const taken = await b.call('PATCH', '/v1/me', { body: { username: `taken${n}` } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].meta.reason).toBe('taken');
    // Form-encoded works too.
    const form = await b.call('PATCH', '/v1/me', { form: { first_name: 'Form' } });
    expect(form.status).toBe(200);
    expect(form.body.first_name).toBe('Form');
  });

  it('answers 401 signed out, 404 for another client’s session_id', async () => {
    const anon = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey });
    expect((await anon.call('GET', '/v1/me')).status).toBe(401);
    expect((await anon.call('PATCH', '/v1/me', { body: { first_name: 'x' } })).status).toBe(401);
    const one = await signedInClient(h, A, await newUser());
    const two = await signedInClient(h, A, await newUser());
    expect((await one.b.call('GET', `/v1/me?session_id=${two.sessionId}`)).status).toBe(404);
    await one.b.call('POST', `/v1/client/sessions/${one.sessionId}/end`);
    expect((await one.b.call('GET', '/v1/me')).status).toBe(401);
  });
});

describe('personal access tokens', () => {
  it('mints with a session (web or native), secret once as uat_, stored as SHA-256', async () => {
    const { userId, b } = await signedInUser();
    const res = await mint(b, ['me:read'], { expires_in_seconds: 3600 });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ object: 'api_token', name: 'cli', scopes: ['me:read'], status: 'active', revoked_at: null });
    expect(res.body.id).toMatch(/^pat_[0-9A-Z]{26}$/);
    expect(res.body.token).toMatch(/^uat_[A-Za-z0-9_-]{43}$/);
    expect(res.body.expires_at).toBe(h.clock.now() + 3600_000);
    const [row] = await h.runtime.deps.db.select().from(apiTokens).where(eq(apiTokens.id, res.body.id));
    expect(row!.digest).toBe(sha256Hex(res.body.token));
    expect(JSON.stringify(row)).not.toContain(res.body.token);

    const list = await b.call('GET', '/v1/client/me/api_tokens');
    expect(list.body).toMatchObject({ object: 'list', has_more: false });
    expect(list.body.data.map((t: { id: string }) => t.id)).toEqual([res.body.id]);
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);

    const app = await signedInClient(h, A, userId, { native: true });
    expect((await mint(app.b, 'me:read,me:write')).status).toBe(201);
    // Form-encoded, scopes as a list in one field.
    const form = await b.call('POST', '/v1/client/me/api_tokens', { form: { name: 'form', scopes: 'me:read me:write' } });
    expect(form.status).toBe(201);
    expect(form.body.scopes).toEqual(['me:read', 'me:write']);
  });

  it('is refused without a session and with another uat_ token', async () => {
    const { b } = await signedInClient(h, A, await newUser());
    const token = (await mint(b, ['me:read', 'me:write'])).body.token;
    const anon = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey });
    expect((await mint(anon, ['me:read'])).status).toBe(401);
    const viaToken = await h.call('POST', `/fapi/${A.instanceId}/v1/client/me/api_tokens`, {
      ...withBearer(token),
      body: { name: 'x', scopes: ['me:read'] },
    });
    expect(viaToken.status).toBe(403);
    expect(viaToken.body.errors[0].meta.reason).toBe('personal_access_token');
    expect((await h.call('GET', `/fapi/${A.instanceId}/v1/client/me/api_tokens`, withBearer(token))).status).toBe(403);
  });

  it('validates name, scopes and lifetime', async () => {
    const { b } = await signedInClient(h, A, await newUser());
    for (const [body, param] of [
      [{ name: '', scopes: ['me:read'] }, 'name'],
      [{ name: 'x', scopes: [] }, 'scopes'],
      [{ name: 'x', scopes: ['users:read'] }, 'scopes'],
      [{ name: 'x', scopes: ['*'] }, 'scopes'],
      [{ name: 'x', scopes: ['me:read'], expires_in_seconds: 5 }, 'expires_in_seconds'],
      [{ name: 'x', scopes: ['me:read'], user_id: 'user_x' }, 'user_id'],
    ] as const) {
      const res = await b.call('POST', '/v1/client/me/api_tokens', { body });
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(String(res.body.errors[0].meta.param)).toContain(param);
    }
  });

  it('is accepted on the user’s own me-surface within its scopes', async () => {
    const { userId, b } = await signedInUser();
    const read = (await mint(b, ['me:read'])).body.token;
    const write = (await mint(b, ['me:write'])).body.token;

    const got = await h.call('GET', me(), withBearer(read));
    expect(got.status).toBe(200);
    expect(got.body.id).toBe(userId);
    expect(got.body).not.toHaveProperty('private_metadata');

    const denied = await h.call('PATCH', me(), { ...withBearer(read), body: { first_name: 'Nope' } });
    expect(denied.status).toBe(403);
    expect(denied.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'me:write' } });

    const patched = await h.call('PATCH', me(), { ...withBearer(write), body: { first_name: 'Token' } });
    expect(patched.status).toBe(200);
    expect(patched.body.first_name).toBe('Token');
    // write implies read.
    expect((await h.call('GET', me(), withBearer(write))).status).toBe(200);
    // A bearer write is not cookie-authenticated: no Origin needed, a foreign one is not refused.
    expect(
      (await h.call('PATCH', me(), { ...withBearer(write, { origin: 'https://evil.example' }), body: { last_name: 'X' } })).status,
    ).toBe(200);
    // last_used_at is recorded.
    const list = (await b.call('GET', '/v1/client/me/api_tokens')).body.data;
    expect(list.find((t: { scopes: string[] }) => t.scopes[0] === 'me:read').last_used_at).toBe(h.clock.now());
  });

  it('is accepted nowhere else: not on MFA routes, client routes, another instance or the BAPI', async () => {
    const { userId, b, sessionId } = await signedInUser();
    const token = (await mint(b, ['me:read', 'me:write'])).body.token;
    expect((await h.call('POST', `/fapi/${A.instanceId}/v1/me/totp`, withBearer(token))).status).toBe(403);
    expect(
      (await h.call('POST', `/fapi/${A.instanceId}/v1/me/backup_codes`, { ...withBearer(token), body: { code: '123456' } })).status,
    ).toBe(403);
    const client = await h.call('GET', `/fapi/${A.instanceId}/v1/client`, {
      headers: { 'x-publishable-key': A.publishableKey, authorization: `Bearer ${token}` },
    });
    expect(client.status).toBe(200);
    expect(client.body.session).toBeNull();
    expect((await h.call('POST', `/fapi/${A.instanceId}/v1/client/sessions/${sessionId}/tokens`, withBearer(token))).status).toBe(401);
    expect((await h.call('POST', `/fapi/${A.instanceId}/v1/client/sessions/${sessionId}/end`, withBearer(token))).status).toBe(401);
    expect((await h.call('GET', me(B), withBearer(token))).status).toBe(401);
    const bapi = await h.call('GET', `/v1/users/${userId}`, withBearer(token));
    expect(bapi.status).toBe(401);
    expect(['INVALID_KEY', 'UNAUTHENTICATED']).toContain(bapi.body.errors[0].code);
  });

  it('a revoked, expired or unknown token is refused with 401 INVALID_KEY', async () => {
    const { userId, b } = await signedInUser();
    const minted = (await mint(b, ['me:read'])).body;
    const revoked = await b.call('POST', `/v1/client/me/api_tokens/${minted.id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: minted.id, status: 'revoked' });
    expect((await b.call('POST', `/v1/client/me/api_tokens/${minted.id}/revoke`)).status).toBe(200); // idempotent
    const res = await h.call('GET', me(), withBearer(minted.token));
    expect(res.status).toBe(401);
    expect(res.body.errors[0].code).toBe('INVALID_KEY');
    expect((await b.call('GET', '/v1/client/me/api_tokens')).body.data).toEqual([]);

    const short = (await mint(b, ['me:read'], { expires_in_seconds: 60 })).body.token;
    expect((await h.call('GET', me(), withBearer(short))).status).toBe(200);
    h.clock.advance(61_000);
    expect((await h.call('GET', me(), withBearer(short))).status).toBe(401);

    expect((await h.call('GET', me(), withBearer(`uat_${'a'.repeat(43)}`))).status).toBe(401);
    expect((await h.call('GET', me(), withBearer('uat_short'))).status).toBe(401);

    // Another user's token id is not found; a ban refuses the token.
    const other = await signedInClient(h, A, await newUser());
    expect((await other.b.call('POST', `/v1/client/me/api_tokens/${minted.id}/revoke`)).status).toBe(404);
    const live = (await mint(b, ['me:read'])).body.token;
    expect((await h.call('POST', `/v1/users/${userId}/ban`, { key: A.secret })).status).toBe(200);
    expect((await h.call('GET', me(), withBearer(live))).status).toBe(401);
  });

  it('an impersonation session cannot mint one', async () => {
    const userId = await newUser();
    const actor = await h.call('POST', '/v1/actor_tokens', { key: A.secret, body: { user_id: userId, actor: { sub: 'admin_1' } } });
    const b = fapiClient(h, A.instanceId, { publishableKey: A.publishableKey });
    await b.signInWithTicket(actor.body.token);
    const res = await mint(b, ['me:read']);
    expect(res.status).toBe(403);
    expect(res.body.errors[0].meta.reason).toBe('impersonation');
  });
});
