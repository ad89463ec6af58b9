import { createHash, randomBytes } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, externalAccounts, socialProviders } from '../db/schema';
import { browserOf, enrollTotp, eventsDuring, instanceWith, nativeOf, type TestInstance } from '../testing/auth-flows';
import type { FapiTestClient } from '../testing/fapi-client';
import { sharedHarness } from '../testing/harness';
import { browseUntil, browseUntilFormPost, startFakeGitHub, startOidcIdp } from '../testing/social-idps';
import { FLOW_TTL_MS, purgeSocialFlows } from './flow';

const h = sharedHarness({ env: { ALLOW_PRIVATE_WEBHOOK_TARGETS: '1' } });
const APP = 'https://app.example.com/after';
let i: TestInstance;
let idp: Awaited<ReturnType<typeof startOidcIdp>>;
let gh: Awaited<ReturnType<typeof startFakeGitHub>>;
const callbackOf = (t: TestInstance) => `http://localhost:3000/fapi/${t.instanceId}/v1/oauth_callback`;

beforeAll(async () => {
  i = await instanceWith(h, { redirect_urls: ['https://app.example.com/'] });
  idp = await startOidcIdp({ clientId: 'latchkey', clientSecret: 'idp-secret', redirectUris: [callbackOf(i)] });
  idp.accounts.set('alice', { email: 'alice@example.com', email_verified: true, given_name: 'Alice', family_name: 'Liddell' });
  idp.accounts.set('bob', { email: 'Bob@example.com', email_verified: true });
  idp.accounts.set('carol', { email: 'carol@example.com', email_verified: false });
  idp.accounts.set('dave', { email: 'dave@example.com', email_verified: false });
  gh = await startFakeGitHub({ clientId: 'gh-client', clientSecret: 'gh-secret' });
  const create = (body: Record<string, unknown>) => h.call('POST', '/v1/social_providers', { key: i.secret, body });
  expect(
    (
      await create({
        kind: 'oidc',
        name: 'acme',
        display_name: 'Acme ID',
        issuer: idp.issuer,
        client_id: 'latchkey',
        client_secret: 'idp-secret',
      })
    ).status,
  ).toBe(201);
  // A preset pointed at the test provider instead of accounts.google.com.
  expect((await create({ kind: 'google', issuer: idp.issuer, client_id: 'latchkey', client_secret: 'idp-secret' })).status).toBe(201);
  expect((await create({ kind: 'github', endpoints: gh.endpoints, client_id: 'gh-client', client_secret: 'gh-secret' })).status).toBe(201);
});
afterAll(async () => {
  await idp?.close();
  await gh?.close();
});

/** Starts a social sign-in in browser `b`: the provider URL it is sent to. */
async function start(b: FapiTestClient, strategy: string, kind: 'sign_ins' | 'sign_ups' = 'sign_ins') {
  const res = await b.call('POST', `/v1/client/${kind}`, { body: { strategy, redirect_url: APP } });
  expect(res.status).toBe(200);
  const v = kind === 'sign_ins' ? res.body.response.first_factor_verification : res.body.response.verifications.external_account;
  expect(v).toMatchObject({ status: 'unverified', strategy });
  return { id: res.body.response.id as string, url: v.external_verification_redirect_url as string };
}

/** The whole round trip: start, sign in at the provider as `sub`, come back to the callback. */
async function socialSignIn(b: FapiTestClient, strategy: string, login: () => void, tamper?: (u: URL) => void) {
  const started = await start(b, strategy);
  login();
  const url = new URL(started.url);
  tamper?.(url);
  const back = await browseUntil(url.href, callbackOf(i));
  const res = await callback(b, back.search);
  return { ...started, res, back };
}

/** The browser arriving back from the provider (with its cookies, none for a stranger; keeping those it is given); the answer is a redirect or an HTML page. */
async function callback(b: FapiTestClient | null, search: string) {
  const cookie = b?.cookieHeader();
  const res = await h.request('GET', `/fapi/${i.instanceId}/v1/oauth_callback${search}`, { headers: cookie ? { cookie } : {} });
  b?.keepCookies(res.headers);
  return res;
}

async function lastAudit(action: string) {
  const [row] = await h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, i.instanceId), eq(auditLogs.action, action)))
    .orderBy(desc(auditLogs.id))
    .limit(1);
  return row;
}

describe('social providers over BAPI', () => {
  it('never returns the client secret and keeps it encrypted', async () => {
    const list = await h.call('GET', '/v1/social_providers', { key: i.secret });
    expect(list.status).toBe(200);
    expect(list.body.data.map((p: { strategy: string }) => p.strategy)).toEqual(['oauth_acme', 'oauth_google', 'oauth_github']);
    expect(JSON.stringify(list.body)).not.toContain('idp-secret');
    expect(list.body.data[0]).toMatchObject({
      client_secret_set: true,
      callback_url: callbackOf(i),
      scopes: ['openid', 'email', 'profile'],
    });
    const rows = await h.runtime.deps.db.select().from(socialProviders).where(eq(socialProviders.instanceId, i.instanceId));
    for (const r of rows) {
      expect(r.clientSecretEncrypted).not.toContain('secret');
      expect(h.runtime.deps.cipher.decrypt(r.clientSecretEncrypted)).toMatch(/secret$/);
    }
    const audit = await lastAudit('social_provider.created');
    expect(JSON.stringify(audit?.details)).not.toContain('secret"');
  });

  it('requires the sso scope', async () => {
    const key = await h.createKey(i.instanceId, 'users:read');
    const res = await h.call('GET', '/v1/social_providers', { key: key.secret });
    expect(res.status).toBe(403);
    expect(res.body.errors[0]).toMatchObject({ code: 'SCOPE_MISSING', meta: { required_scope: 'sso:read' } });
  });

  it('validates: an OIDC provider needs an issuer and a name, names are unique, URLs are URLs', async () => {
    const t = await h.createInstance();
    const post = (body: Record<string, unknown>) => h.call('POST', '/v1/social_providers', { key: t.secret, body });
    expect((await post({ kind: 'oidc', name: 'x', client_id: 'a', client_secret: 'b' })).body.errors[0].meta).toEqual({
      param: 'issuer',
      reason: 'required',
    });
    expect(
      (await post({ kind: 'oidc', issuer: 'https://id.example.com', client_id: 'a', client_secret: 'b' })).body.errors[0].meta,
    ).toEqual({ param: 'name', reason: 'required' });
    expect((await post({ kind: 'microsoft', client_id: 'a', client_secret: 'b' })).body.errors[0].meta).toEqual({
      param: 'issuer',
      reason: 'required',
    });
    expect((await post({ kind: 'oidc', name: 'x', issuer: 'ftp://x', client_id: 'a', client_secret: 'b' })).body.errors[0].meta).toEqual({
      param: 'issuer',
      reason: 'invalid_url',
    });
    expect((await post({ kind: 'google', client_id: 'a' })).status).toBe(422);
    const ms = await post({ kind: 'microsoft', tenant_id: 'contoso-tenant', client_id: 'a', client_secret: 'b' });
    expect(ms.status).toBe(201);
    expect(ms.body.issuer).toBe('https://login.microsoftonline.com/contoso-tenant/v2.0');
    expect((await post({ kind: 'microsoft', tenant_id: 'other', client_id: 'a', client_secret: 'b' })).body.errors[0].meta).toEqual({
      param: 'name',
      reason: 'taken',
    });
    const patched = await h.call('PATCH', `/v1/social_providers/${ms.body.id}`, {
      key: t.secret,
      body: { enabled: false, client_secret: 'new' },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.enabled).toBe(false);
    expect((await lastAuditOf(t.instanceId, 'social_provider.updated'))?.details).toMatchObject({
      client_secret_changed: true,
      enabled: false,
    });
    expect((await h.call('DELETE', `/v1/social_providers/${ms.body.id}`, { key: t.secret })).body).toEqual({
      object: 'social_provider',
      id: ms.body.id,
      deleted: true,
    });
    expect((await h.call('GET', `/v1/social_providers/${ms.body.id}`, { key: t.secret })).status).toBe(404);
  });

  it('lists enabled providers in the environment (the hosted pages’ buttons)', async () => {
    const b = browserOf(h, i);
    const env = await b.call('GET', '/v1/environment');
    expect(env.body.user_settings.social).toEqual([
      { strategy: 'oauth_acme', name: 'acme', display_name: 'Acme ID', kind: 'oidc' },
      { strategy: 'oauth_google', name: 'google', display_name: 'Google', kind: 'google' },
      { strategy: 'oauth_github', name: 'github', display_name: 'GitHub', kind: 'github' },
    ]);
  });
});

async function lastAuditOf(instanceId: string, action: string) {
  const [row] = await h.runtime.deps.db
    .select()
    .from(auditLogs)
    .where(and(eq(auditLogs.instanceId, instanceId), eq(auditLogs.action, action)))
    .orderBy(desc(auditLogs.id))
    .limit(1);
  return row;
}

describe('social sign-in with an OIDC provider (oidc-provider on loopback)', () => {
  it('creates the user just in time, signs in, and finds them again by the provider account', async () => {
    const b = browserOf(h, i);
    const { result, events } = await eventsDuring(h, i.instanceId, () => socialSignIn(b, 'oauth_acme', () => (idp.loginAs = 'alice')));
    const { res, id } = result;
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(APP);
    expect(events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['user.created', 'session.created']));
    const client = await b.call('GET', '/v1/client');
    const session = client.body.sessions[0];
    expect(session.status).toBe('active');
    const user = (await h.call('GET', `/v1/users/${session.user_id}`, { key: i.secret })).body;
    expect(user).toMatchObject({ first_name: 'Alice', last_name: 'Liddell' });
    expect(user.email_addresses[0]).toMatchObject({
      email_address: 'alice@example.com',
      verification: { status: 'verified', strategy: 'oauth_acme' },
    });
    const [account] = await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.userId, user.id));
    expect(account).toMatchObject({ provider: 'acme', providerUserId: 'alice', email: 'alice@example.com', emailVerified: true });
    // The attempt announced at the start is the completed sign-in.
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).body.response).toMatchObject({
      status: 'complete',
      first_factor_verification: { strategy: 'oauth_acme' },
    });
    expect((await lastAudit('social.sign_in'))?.details).toMatchObject({ provider: 'acme', outcome: 'created' });

    const again = browserOf(h, i);
    const second = await socialSignIn(again, 'oauth_acme', () => (idp.loginAs = 'alice'));
    expect(second.res.status).toBe(303);
    expect((await again.call('GET', '/v1/client')).body.sessions[0].user_id).toBe(user.id);
    expect((await lastAudit('social.sign_in'))?.details).toMatchObject({ provider: 'acme', outcome: 'existing' });
  });

  it('links an existing user by verified email (preset with overridden issuer)', async () => {
    const created = await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: ['bob@example.com'] } });
    expect(created.status).toBe(200);
    const b = browserOf(h, i);
    const { res } = await socialSignIn(b, 'oauth_google', () => (idp.loginAs = 'bob'));
    expect(res.status).toBe(303);
    expect((await b.call('GET', '/v1/client')).body.sessions[0].user_id).toBe(created.body.id);
    expect((await lastAudit('social.sign_in'))?.details).toMatchObject({ provider: 'google', outcome: 'linked' });
    const [account] = await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.userId, created.body.id));
    expect(account).toMatchObject({ provider: 'google', providerUserId: 'bob' });
  });

  it('forgets the links of a provider moved to another issuer', async () => {
    const t = await h.createInstance();
    const p = await h.call('POST', '/v1/social_providers', {
      key: t.secret,
      body: { kind: 'oidc', name: 'x', issuer: idp.issuer, client_id: 'latchkey', client_secret: 's' },
    });
    const u = await h.call('POST', '/v1/users', { key: t.secret, body: { email_address: ['linked@example.com'] } });
    const now = h.clock.now();
    await h.runtime.deps.db.insert(externalAccounts).values({
      id: 'eac_01J00000000000000000000000',
      instanceId: t.instanceId,
      userId: u.body.id,
      provider: 'x',
      providerUserId: 's1',
      createdAt: now,
      updatedAt: now,
    });
    await h.call('PATCH', `/v1/social_providers/${p.body.id}`, { key: t.secret, body: { display_name: 'Same issuer' } });
    expect(await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.instanceId, t.instanceId))).toHaveLength(1);
    await h.call('PATCH', `/v1/social_providers/${p.body.id}`, { key: t.secret, body: { issuer: 'https://other.example.com' } });
    expect(await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.instanceId, t.instanceId))).toEqual([]);
  });

  it('refuses to link (or create) by an unverified email, and audits the reason', async () => {
    const carol = await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: ['carol@example.com'] } });
    const b = browserOf(h, i);
    const { res } = await socialSignIn(b, 'oauth_acme', () => (idp.loginAs = 'carol'));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('email_not_verified');
    expect((await b.call('GET', '/v1/client')).body.sessions).toEqual([]);
    expect(await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.userId, carol.body.id))).toEqual([]);
    expect((await lastAudit('social.sign_in_failed'))?.details).toMatchObject({ reason: 'email_not_verified', provider: 'acme' });

    const nobody = browserOf(h, i);
    const fresh = await socialSignIn(nobody, 'oauth_acme', () => (idp.loginAs = 'dave'));
    expect(fresh.res.status).toBe(403);
    const users = await h.call('GET', '/v1/users?email_address=dave@example.com', { key: i.secret });
    expect(JSON.stringify(users.body)).not.toContain('dave@example.com');
  });

  it('refuses an unknown, replayed or foreign state', async () => {
    const b = browserOf(h, i);
    const { res, back } = await socialSignIn(b, 'oauth_acme', () => (idp.loginAs = 'alice'));
    expect(res.status).toBe(303);
    const replay = await callback(b, back.search);
    expect(replay.status).toBe(403);
    const bogus = new URL(back);
    bogus.searchParams.set('state', 'not-the-state');
    const wrong = await callback(b, bogus.search);
    expect(wrong.status).toBe(403);
    expect((await lastAudit('social.sign_in_failed'))?.details).toMatchObject({ reason: 'state_invalid' });

    // A callback carried to another browser (login CSRF) is refused.
    const victim = browserOf(h, i);
    await victim.call('GET', '/v1/client');
    await victim.call('POST', '/v1/client/sign_ins', { body: { identifier: 'x@example.com' } });
    const attacker = browserOf(h, i);
    const started = await start(attacker, 'oauth_acme');
    idp.loginAs = 'alice';
    const carried = await browseUntil(started.url, callbackOf(i));
    const stolen = await callback(victim, carried.search);
    expect(stolen.status).toBe(403);
    expect((await lastAudit('social.sign_in_failed'))?.details).toMatchObject({ reason: 'flow_binding_mismatch' });
  });

  it('a provider URL sent to someone else signs nobody in: their browser, with no client cookie or its own, is refused and nothing is created', async () => {
    idp.accounts.set('gina', { email: 'gina@example.com', email_verified: true });
    for (const victimHasClient of [false, true]) {
      // The attacker starts on their own client and sends the provider URL to the victim…
      const attacker = browserOf(h, i);
      const started = await start(attacker, 'oauth_acme');
      expect(attacker.cookies.size).toBe(1);
      // …whose browser signs in at the provider and comes back: a first visit (no cookie of ours), or with its own client.
      idp.loginAs = 'gina';
      const back = await browseUntil(started.url, callbackOf(i));
      const victim = browserOf(h, i);
      if (victimHasClient) await victim.call('POST', '/v1/client/sign_ins', { body: { identifier: 'x@example.com' } });
      const res = await callback(victimHasClient ? victim : null, back.search);
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('flow_binding_mismatch');
      expect((await lastAudit('social.sign_in_failed'))?.details).toMatchObject({ reason: 'flow_binding_mismatch', provider: null });
      expect((await attacker.call('GET', '/v1/client')).body.sessions).toEqual([]);
      expect((await attacker.call('GET', `/v1/client/sign_ins/${started.id}`)).status).toBe(404);
      if (victimHasClient) expect((await victim.call('GET', '/v1/client')).body.sessions).toEqual([]);
    }
    const users = await h.call('GET', '/v1/users?email_address=gina@example.com', { key: i.secret });
    expect(users.body.data).toEqual([]);
    expect(await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.providerUserId, 'gina'))).toEqual([]);
  });

  it('binds the flow cookie to the flow: SameSite=Lax, HttpOnly, the flow’s 10 minutes', async () => {
    const b = browserOf(h, i);
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme', redirect_url: APP } });
    const flowCookie = res.headers.getSetCookie().find((c) => c.startsWith('__flow_'));
    expect(flowCookie).toMatch(
      new RegExp(`^__flow_socf_\\w+=[\\w-]{43}; Path=/fapi/${i.instanceId}; HttpOnly; SameSite=Lax; Max-Age=600$`),
    );
    // The client cookie is set beside it.
    expect(res.headers.getSetCookie().some((c) => c.startsWith('__client=ct_'))).toBe(true);
  });

  it('a native app binds by its code challenge and claims the sign-in with the nonce its browser came back with and its verifier', async () => {
    idp.accounts.set('hank', { email: 'hank@example.com', email_verified: true });
    const app = nativeOf(h, i);
    const missing = await app.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme', redirect_url: APP } });
    expect(missing.status).toBe(422);
    expect(missing.body.errors[0].meta).toEqual({ param: 'code_challenge', reason: 'required' });

    const verifier = randomBytes(32).toString('base64url');
    const code_challenge = createHash('sha256').update(verifier).digest('base64url');
    const res = await app.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme', redirect_url: APP, code_challenge } });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    const id = res.body.response.id as string;
    idp.loginAs = 'hank';
    // The system browser comes back with no cookie of ours: it is sent on to the app with a claim nonce.
    const back = await callback(
      null,
      (await browseUntil(res.body.response.first_factor_verification.external_verification_redirect_url, callbackOf(i))).search,
    );
    expect(back.status).toBe(303);
    const landing = new URL(back.headers.get('location')!);
    expect(landing.origin + landing.pathname).toBe(APP);
    const nonce = landing.searchParams.get('claim_nonce')!;
    expect((await app.call('GET', '/v1/client')).body.sessions).toEqual([]);

    const claim = (c: FapiTestClient, body: Record<string, string>) => c.call('POST', `/v1/client/sign_ins/${id}/claim`, { body });
    expect((await claim(app, { claim_nonce: nonce, code_verifier: randomBytes(32).toString('base64url') })).body.errors[0].meta).toEqual({
      reason: 'claim_invalid',
    });
    expect((await claim(app, { claim_nonce: 'wrong', code_verifier: verifier })).status).toBe(403);
    const done = await claim(app, { claim_nonce: nonce, code_verifier: verifier });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response).toMatchObject({ id, status: 'complete', first_factor_verification: { strategy: 'oauth_acme' } });
    const sessions = (await app.call('GET', '/v1/client')).body.sessions;
    expect(sessions).toHaveLength(1);
    expect((await claim(app, { claim_nonce: nonce, code_verifier: verifier })).status).toBe(403);
    expect((await lastAudit('social.sign_in'))?.details).toMatchObject({ provider: 'acme', outcome: 'created', sign_in_attempt_id: id });
  });

  it('purges flows past their 10 minutes; a late callback is refused', async () => {
    const b = browserOf(h, i);
    const started = await start(b, 'oauth_acme');
    idp.loginAs = 'alice';
    const back = await browseUntil(started.url, callbackOf(i));
    h.clock.advance(FLOW_TTL_MS + 1);
    expect((await purgeSocialFlows(h.runtime.deps)).social_flows).toBeGreaterThanOrEqual(1);
    const res = await callback(b, back.search);
    expect(res.status).toBe(403);
    expect((await lastAudit('social.sign_in_failed'))?.details).toMatchObject({ reason: 'state_invalid' });
  });

  it('refuses an ID token whose nonce is not the flow’s', async () => {
    const b = browserOf(h, i);
    const { res } = await socialSignIn(
      b,
      'oauth_acme',
      () => (idp.loginAs = 'alice'),
      (u) => u.searchParams.set('nonce', 'another-nonce'),
    );
    expect(res.status).toBe(403);
    const failed = await lastAudit('social.sign_in_failed');
    expect(failed?.details).toMatchObject({ reason: 'token_invalid' });
    expect(String((failed?.details as { message?: string }).message)).toContain('nonce');
    expect((await b.call('GET', '/v1/client')).body.sessions).toEqual([]);
  });

  it('leaves a user with TOTP pending until the second factor', async () => {
    idp.accounts.set('erin', { email: 'erin@example.com', email_verified: true });
    const erin = await h.call('POST', '/v1/users', { key: i.secret, body: { email_address: ['erin@example.com'] } });
    const { totp } = await enrollTotp(h, i.instanceId, erin.body.id);
    const b = browserOf(h, i);
    const { res, id } = await socialSignIn(b, 'oauth_acme', () => (idp.loginAs = 'erin'));
    expect(res.status).toBe(303);
    expect((await b.call('GET', '/v1/client')).body.sessions[0]).toMatchObject({ user_id: erin.body.id, status: 'pending' });
    expect((await b.call('GET', `/v1/client/sign_ins/${id}`)).body.response.status).toBe('needs_second_factor');
    const done = await b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, {
      body: { strategy: 'totp', code: totp.generate({ timestamp: h.clock.now() }) },
    });
    expect(done.body.response.status).toBe('complete');
    expect((await b.call('GET', '/v1/client')).body.sessions[0].status).toBe('active');
  });

  it('refuses a provider on a private address for a live instance (SSRF guard)', async () => {
    const live = await h.createInstance({ environment: 'live' });
    const made = await h.call('POST', '/v1/social_providers', {
      key: live.secret,
      body: { kind: 'oidc', name: 'acme', issuer: idp.issuer, client_id: 'latchkey', client_secret: 'idp-secret' },
    });
    expect(made.status).toBe(201);
    const b = browserOf(h, live);
    const res = await b.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'oauth_acme', redirect_url: `http://localhost:3000/fapi/${live.instanceId}/profile` },
    });
    expect(res.status).toBe(503);
    expect(res.body.errors[0].meta).toEqual({ reason: 'provider_error' });
  });

  it('refuses an unknown strategy and a redirect_url the instance does not allow', async () => {
    const b = browserOf(h, i);
    const unknown = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_nope', redirect_url: APP } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].meta).toEqual({ param: 'strategy', reason: 'unknown_provider' });
    const elsewhere = await b.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'oauth_acme', redirect_url: 'https://evil.example.net/' },
    });
    expect(elsewhere.body.errors[0].meta).toEqual({ param: 'redirect_url', reason: 'redirect_url_not_allowed' });
    const missing = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_acme' } });
    expect(missing.body.errors[0].meta).toEqual({ param: 'redirect_url', reason: 'required' });
  });
});

describe('social sign-in with GitHub (OAuth 2.0 and its API, faked on loopback)', () => {
  it('signs up through oauth_github with the primary verified address', async () => {
    gh.loginAs = {
      id: 4242,
      login: 'octo',
      name: 'Octo Cat',
      emails: [{ email: 'octo@users.example.com', primary: true, verified: true }],
    };
    const b = browserOf(h, i);
    const started = await start(b, 'oauth_github', 'sign_ups');
    const back = await browseUntil(started.url, callbackOf(i));
    const res = await callback(b, back.search);
    expect(res.status).toBe(303);
    const session = (await b.call('GET', '/v1/client')).body.sessions[0];
    const user = (await h.call('GET', `/v1/users/${session.user_id}`, { key: i.secret })).body;
    expect(user).toMatchObject({ first_name: 'Octo', last_name: 'Cat' });
    expect(user.email_addresses[0].email_address).toBe('octo@users.example.com');
    const [account] = await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.userId, user.id));
    expect(account).toMatchObject({ provider: 'github', providerUserId: '4242', emailVerified: true });
  });

  it('refuses a GitHub account without a verified address', async () => {
    gh.loginAs = { id: 99, login: 'nomail', name: 'No Mail', emails: [{ email: 'nomail@example.com', primary: true, verified: false }] };
    const b = browserOf(h, i);
    const started = await start(b, 'oauth_github');
    const back = await browseUntil(started.url, callbackOf(i));
    const res = await callback(b, back.search);
    expect(res.status).toBe(403);
    expect((await lastAudit('social.sign_in_failed'))?.details).toMatchObject({ reason: 'email_not_verified', provider: 'github' });
  });
});

describe('social sign-in with Discord and Facebook (OAuth 2.0 presets, their APIs faked on loopback)', () => {
  let t: TestInstance;
  beforeAll(async () => {
    t = await instanceWith(h, { redirect_urls: ['https://app.example.com/'] });
    for (const kind of ['discord', 'facebook']) {
      const res = await h.call('POST', '/v1/social_providers', {
        key: t.secret,
        body: { kind, endpoints: gh.endpoints, client_id: 'gh-client', client_secret: 'gh-secret' },
      });
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      expect(res.body).toMatchObject({ kind, strategy: `oauth_${kind}` });
    }
  });

  it.each(['discord', 'facebook'])('signs up through oauth_%s with the verified address and the name', async (kind) => {
    const id = kind === 'discord' ? 5150 : 6160;
    gh.loginAs = {
      id,
      login: `${kind}er`,
      name: 'Dee Cord',
      emails: [{ email: `${kind}@users.example.com`, primary: true, verified: true }],
    };
    const b = browserOf(h, t);
    const res = await b.call('POST', '/v1/client/sign_ups', { body: { strategy: `oauth_${kind}`, redirect_url: APP } });
    const url = res.body.response.verifications.external_account.external_verification_redirect_url as string;
    const back = await browseUntil(url, `http://localhost:3000/fapi/${t.instanceId}/v1/oauth_callback`);
    const cookie = b.cookieHeader();
    const done = await h.request('GET', `/fapi/${t.instanceId}/v1/oauth_callback${back.search}`, { headers: cookie ? { cookie } : {} });
    expect(done.status).toBe(303);
    b.keepCookies(done.headers);
    const session = (await b.call('GET', '/v1/client')).body.sessions[0];
    const user = (await h.call('GET', `/v1/users/${session.user_id}`, { key: t.secret })).body;
    expect(user).toMatchObject({ first_name: 'Dee', last_name: 'Cord' });
    expect(user.email_addresses[0].email_address).toBe(`${kind}@users.example.com`);
    const [account] = await h.runtime.deps.db.select().from(externalAccounts).where(eq(externalAccounts.userId, user.id));
    expect(account).toMatchObject({ provider: kind, providerUserId: String(id), emailVerified: true });
  });

  it('refuses a Discord account whose address Discord has not verified', async () => {
    gh.loginAs = {
      id: 7170,
      login: 'unverified',
      name: 'Un Verified',
      emails: [{ email: 'unv@example.com', primary: true, verified: false }],
    };
    const b = browserOf(h, t);
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_discord', redirect_url: APP } });
    const back = await browseUntil(
      res.body.response.first_factor_verification.external_verification_redirect_url,
      `http://localhost:3000/fapi/${t.instanceId}/v1/oauth_callback`,
    );
    const cookie = b.cookieHeader();
    const done = await h.request('GET', `/fapi/${t.instanceId}/v1/oauth_callback${back.search}`, { headers: cookie ? { cookie } : {} });
    expect(done.status).toBe(403);
  });
});

describe('Sign in with Apple (OpenID Connect, the answer posted back)', () => {
  it('asks for form_post; the posted answer is sent on to the GET callback, which signs in with the browser’s cookies', async () => {
    const created = await h.call('POST', '/v1/social_providers', {
      key: i.secret,
      // The preset pointed at the test provider (which knows no `name` scope).
      body: {
        kind: 'apple',
        issuer: idp.issuer,
        scopes: ['openid', 'email', 'profile'],
        client_id: 'latchkey',
        client_secret: 'idp-secret',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({ kind: 'apple', strategy: 'oauth_apple', display_name: 'Apple' });
    expect(
      (
        await h.call('POST', '/v1/social_providers', {
          key: (await h.createInstance()).secret,
          body: { kind: 'apple', client_id: 'a', client_secret: 'b' },
        })
      ).body,
    ).toMatchObject({ issuer: 'https://appleid.apple.com', scopes: ['openid', 'email', 'name'] });
    idp.loginAs = 'alice';
    const b = browserOf(h, i);
    const res = await b.call('POST', '/v1/client/sign_ins', { body: { strategy: 'oauth_apple', redirect_url: APP } });
    const url = new URL(res.body.response.first_factor_verification.external_verification_redirect_url);
    expect(url.searchParams.get('response_mode')).toBe('form_post');
    const fields = await browseUntilFormPost(url.href, callbackOf(i));
    expect(fields.get('code')).toBeTruthy();
    // Posted from Apple's site: the browser's SameSite=Lax cookies stay home.
    const posted = await h.request('POST', `/fapi/${i.instanceId}/v1/oauth_callback`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: 'https://appleid.apple.com' },
      raw: fields.toString(),
    });
    expect(posted.status, await posted.clone().text()).toBe(303);
    const onward = new URL(posted.headers.get('location')!);
    expect(onward.href.startsWith(callbackOf(i))).toBe(true);
    const done = await callback(b, onward.search);
    expect(done.status, await done.clone().text()).toBe(303);
    expect(done.headers.get('location')).toBe(APP);
    const session = (await b.call('GET', '/v1/client')).body.sessions[0];
    const user = (await h.call('GET', `/v1/users/${session.user_id}`, { key: i.secret })).body;
    expect(user.email_addresses[0].email_address).toBe('alice@example.com');
    await h.call('DELETE', `/v1/social_providers/${created.body.id}`, { key: i.secret });
  });
});

describe('the mock provider of test instances (kind mock: its authorize page is served by Latchkey)', () => {
  const ORIGIN = 'http://localhost:3000';
  /** The page's form posted by the browser `b` (its cookies, the fapi's own origin). */
  const answer = (b: FapiTestClient | null, fields: Record<string, string>) =>
    h.request('POST', `/fapi/${i.instanceId}/v1/mock_oauth/authorize`, {
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: ORIGIN,
        ...(b?.cookieHeader() ? { cookie: b.cookieHeader()! } : {}),
      },
      raw: new URLSearchParams(fields).toString(),
    });
  const pagePath = (url: string) => new URL(url).pathname + new URL(url).search;

  let providerId = '';
  beforeAll(async () => {
    const made = await h.call('POST', '/v1/social_providers', { key: i.secret, body: { kind: 'mock' } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      kind: 'mock',
      name: 'mock',
      strategy: 'oauth_mock',
      display_name: 'Mock provider',
      client_secret_set: true,
    });
    providerId = made.body.id;
  });
  afterAll(async () => {
    await h.call('DELETE', `/v1/social_providers/${providerId}`, { key: i.secret });
  });

  it('signs a new user up in one round trip: the page, the form, the normal callback; audited like every social sign-in', async () => {
    const b = browserOf(h, i);
    const started = await start(b, 'oauth_mock');
    expect(started.url.startsWith(`${ORIGIN}/fapi/${i.instanceId}/v1/mock_oauth/authorize?state=`)).toBe(true);
    const page = await h.request('GET', pagePath(started.url));
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('<form method="post"');
    expect(html).toContain('name="email"');
    const state = new URL(started.url).searchParams.get('state')!;

    const posted = await answer(b, { state, decision: 'allow', email: 'Mona@Example.com', first_name: 'Mona', last_name: 'Mock' });
    expect(posted.status, await posted.clone().text()).toBe(303);
    const back = new URL(posted.headers.get('location')!);
    expect(back.href.startsWith(callbackOf(i))).toBe(true);
    expect(back.searchParams.get('state')).toBe(state);
    expect(back.searchParams.get('code')).toMatch(/^mockc_/);

    const { result, events } = await eventsDuring(h, i.instanceId, () => callback(b, back.search));
    expect(result.status, await result.clone().text()).toBe(303);
    expect(result.headers.get('location')).toBe(APP);
    expect(events.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['user.created', 'session.created']));
    const session = (await b.call('GET', '/v1/client')).body.sessions[0];
    expect(session.status).toBe('active');
    const user = (await h.call('GET', `/v1/users/${session.user_id}`, { key: i.secret })).body;
    expect(user).toMatchObject({ first_name: 'Mona', last_name: 'Mock' });
    expect(user.email_addresses[0]).toMatchObject({
      email_address: 'Mona@Example.com',
      verification: { status: 'verified', strategy: 'oauth_mock' },
    });
    expect((await lastAudit('social.sign_in'))?.details).toMatchObject({ provider: 'mock', outcome: 'created' });

    // The same address again (any case) is the same provider account.
    const again = browserOf(h, i);
    const second = await start(again, 'oauth_mock');
    const s2 = new URL(second.url).searchParams.get('state')!;
    const p2 = await answer(again, { state: s2, decision: 'allow', email: 'mona@example.com' });
    expect((await callback(again, new URL(p2.headers.get('location')!).search)).status).toBe(303);
    expect((await again.call('GET', '/v1/client')).body.sessions[0].user_id).toBe(user.id);
    expect((await lastAudit('social.sign_in'))?.details).toMatchObject({ provider: 'mock', outcome: 'existing' });

    // Used: the page and its form answer a clear 400 page for that state.
    expect((await h.request('GET', pagePath(started.url))).status).toBe(400);
    const late = await answer(b, { state, decision: 'allow', email: 'someone@example.com' });
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('already used');
  });

  it('a wrong code, Cancel, and an invalid address sign nobody in', async () => {
    const b = browserOf(h, i);
    const started = await start(b, 'oauth_mock');
    const state = new URL(started.url).searchParams.get('state')!;
    const invalid = await answer(b, { state, decision: 'allow', email: 'not an address' });
    expect(invalid.status).toBe(400);
    expect(await invalid.text()).toContain('Enter a valid email address.');

    const posted = await answer(b, { state, decision: 'allow', email: 'forged@example.com' });
    const back = new URL(posted.headers.get('location')!);
    back.searchParams.set('code', 'mockc_guessed');
    const forged = await callback(b, back.search);
    expect(forged.status).toBe(403);
    expect(await forged.text()).toContain('(token_invalid)');
    expect((await b.call('GET', '/v1/client')).body.sessions).toEqual([]);

    const c = browserOf(h, i);
    const other = await start(c, 'oauth_mock');
    const cancelled = await answer(c, { state: new URL(other.url).searchParams.get('state')!, decision: 'deny' });
    const cancelBack = new URL(cancelled.headers.get('location')!);
    expect(cancelBack.searchParams.get('error')).toBe('access_denied');
    const refused = await callback(c, cancelBack.search);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('(provider_error)');
    const made = await h.call('GET', `/v1/users?email_address=forged@example.com`, { key: i.secret });
    expect(made.body.data ?? made.body).toEqual([]);
  });

  it('is refused on a production instance: when adding it, and at every step should a row exist', async () => {
    const live = await h.createInstance({ environment: 'live' });
    const refused = await h.call('POST', '/v1/social_providers', { key: live.secret, body: { kind: 'mock' } });
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'FORBIDDEN', meta: { reason: 'mock_provider_test_only', param: 'kind' } });
    expect(refused.body.errors[0].message).toContain('test (development) instances only');
    // A real provider still needs its client.
    const noClient = await h.call('POST', '/v1/social_providers', { key: live.secret, body: { kind: 'google' } });
    expect(noClient.status).toBe(422);
    expect(noClient.body.errors[0].meta).toMatchObject({ param: 'client_id' });

    // A row written behind the API's back (or an instance's environment changed) still starts nothing.
    const now = Date.now();
    await h.runtime.deps.db.insert(socialProviders).values({
      id: `socp_${randomBytes(8).toString('hex')}`,
      instanceId: live.instanceId,
      name: 'mock',
      kind: 'mock',
      displayName: 'Mock provider',
      clientId: 'mock',
      clientSecretEncrypted: h.runtime.deps.cipher.encrypt('x'),
      issuer: null,
      endpoints: {},
      scopes: ['openid'],
      enabled: true,
      createdAt: now,
      updatedAt: now,
    });
    const b = browserOf(h, live);
    const res = await b.call('POST', '/v1/client/sign_ins', {
      body: { strategy: 'oauth_mock', redirect_url: `http://localhost:3000/fapi/${live.instanceId}/profile` },
    });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].meta).toMatchObject({ reason: 'mock_provider_test_only' });
    const page = await h.request('GET', `/fapi/${live.instanceId}/v1/mock_oauth/authorize?state=x`);
    expect(page.status).toBe(403);
  });
});
