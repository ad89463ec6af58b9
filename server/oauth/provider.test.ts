import * as client from 'openid-client';
import { createLocalJWKSet, jwtVerify, decodeProtectedHeader } from 'jose';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, oauthCodes, oauthGrants } from '../db/schema';
import { createHarness, type TestHarness } from '../testing/harness';
import { browserOf, instanceWith, signUp, type TestInstance } from '../testing/auth-flows';
import type { FapiTestClient } from '../testing/fapi-client';
import { browserGet, browserPost, consentForm, createOAuthApp, fapiUrlOf, relyingParty, startCodeFlow } from '../testing/oidc';

let h: TestHarness;
let inst: TestInstance;
let browser: FapiTestClient;
let userId: string;

beforeAll(async () => {
  h = await createHarness();
  inst = await instanceWith(h);
  browser = browserOf(h, inst);
  ({ userId } = await signUp(h, browser, {
    email_address: 'ada@example.com',
    password: 'correct horse battery staple',
    first_name: 'Ada',
    last_name: 'Lovelace',
  }));
});
afterAll(() => h.close());

/** Runs the browser through authorize (and the consent page when shown); answers the RP's callback URL. */
async function authorizeAs(b: FapiTestClient | null, url: URL, consent: 'allow' | 'deny' | 'expect-none' = 'allow') {
  const res = await browserGet(h, b, url);
  if (res.status === 200) {
    if (consent === 'expect-none') throw new Error('the consent page was shown');
    const form = consentForm(await res.text());
    const posted = await browserPost(h, b, `/fapi/${inst.instanceId}/oauth2/consent`, { ...form, decision: consent });
    expect(posted.status).toBe(303);
    return new URL(posted.headers.get('location')!);
  }
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('discovery', () => {
  it('publishes the provider metadata under the fapi_url, which is the issuer', async () => {
    const app = await createOAuthApp(h, inst);
    const config = await relyingParty(h, inst, app);
    const m = config.serverMetadata();
    const issuer = fapiUrlOf(inst);
    expect(m.issuer).toBe(issuer);
    expect(m.authorization_endpoint).toBe(`${issuer}/oauth2/authorize`);
    expect(m.token_endpoint).toBe(`${issuer}/oauth2/token`);
    expect(m.userinfo_endpoint).toBe(`${issuer}/oauth2/userinfo`);
    expect(m.jwks_uri).toBe(`${issuer}/.well-known/jwks.json`);
    expect(m.end_session_endpoint).toBe(`${issuer}/oauth2/end_session`);
    expect(m.code_challenge_methods_supported).toEqual(['S256']);
    expect(m.id_token_signing_alg_values_supported).toEqual(['RS256']);
    expect(m.response_types_supported).toEqual(['code']);
    expect(m.token_endpoint_auth_methods_supported).toEqual(['client_secret_basic', 'client_secret_post', 'none']);
    expect(m.authorization_response_iss_parameter_supported).toBe(true);
    expect(m.grant_types_supported).toEqual([
      'authorization_code',
      'refresh_token',
      'client_credentials',
      'urn:ietf:params:oauth:grant-type:device_code',
    ]);

    const rfc8414 = await h.call('GET', `/fapi/${inst.instanceId}/.well-known/oauth-authorization-server`);
    expect(rfc8414.status).toBe(200);
    expect(rfc8414.body.issuer).toBe(issuer);
    const jwks = await h.call('GET', `/fapi/${inst.instanceId}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys.length).toBeGreaterThan(0);
  });
});

describe('impersonation', () => {
  it('an impersonation session authorizes no application: the RP hears access_denied, no code, no grant', async () => {
    const app = await createOAuthApp(h, inst, { scopes: ['openid', 'profile', 'email'] });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { scope: 'openid email' });
    const actor = await h.call('POST', '/v1/actor_tokens', {
      key: inst.secret,
      body: { user_id: userId, actor: { sub: 'support_agent' } },
    });
    expect(actor.status, JSON.stringify(actor.body)).toBe(200);
    const agent = browserOf(h, inst);
    expect((await agent.signInWithTicket(actor.body.token)).status).toBe(200);
    const res = await browserGet(h, agent, flow.url);
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect(back.searchParams.get('state')).toBe(flow.state);
    expect(await h.runtime.deps.db.select().from(oauthGrants).where(eq(oauthGrants.userId, userId))).toEqual([]);
    expect(await h.runtime.deps.db.select().from(oauthCodes).where(eq(oauthCodes.userId, userId))).toEqual([]);
    // The user's own session still authorizes (the same request, consented).
    expect((await authorizeAs(browser, flow.url)).searchParams.get('code')).toEqual(expect.any(String));
  });
});

describe('authorization code with PKCE', () => {
  it('signs in through the hosted page, asks consent, and issues tokens openid-client accepts', async () => {
    const app = await createOAuthApp(h, inst, { scopes: ['openid', 'profile', 'email', 'offline_access'] });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { scope: 'openid profile email offline_access' });

    // Without a session: the hosted sign-in, returning to this very request.
    const anonymous = await browserGet(h, null, flow.url);
    expect(anonymous.status).toBe(302);
    const signIn = new URL(anonymous.headers.get('location')!);
    expect(signIn.pathname).toBe(`/fapi/${inst.instanceId}/sign-in`);
    const back = new URL(signIn.searchParams.get('redirect_url')!);
    expect(back.pathname).toBe(`/fapi/${inst.instanceId}/oauth2/authorize`);
    expect(back.searchParams.get('state')).toBe(flow.state);
    // The hosted pages will follow it: it is on the fapi_url.
    const env = await browser.call('GET', `/v1/environment?redirect_url=${encodeURIComponent(back.toString())}`);
    expect(env.body.redirect.allowed).toBe(true);

    // Signed in: the consent page lists the scopes, then the code comes back with state and iss.
    const page = await browserGet(h, browser, back);
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('Acme RP');
    expect(html).toContain('See your email address');
    const form = consentForm(html);
    const allowed = await browserPost(h, browser, `/fapi/${inst.instanceId}/oauth2/consent`, { ...form, decision: 'allow' });
    expect(allowed.status).toBe(303);
    const callback = new URL(allowed.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe('https://rp.example.com/callback');
    expect(callback.searchParams.get('iss')).toBe(fapiUrlOf(inst));

    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims()!;
    expect(claims.sub).toBe(userId);
    expect(claims.aud).toBe(app.client_id);
    expect(claims.azp).toBe(app.client_id);
    expect(claims.nonce).toBe(flow.nonce);
    expect(typeof claims.auth_time).toBe('number');
    expect(claims.email).toBe('ada@example.com');
    expect(claims.email_verified).toBe(true);
    // Core §5.4: with an access token, the profile's claims are the UserInfo answer's (email stays, docs/oidc-provider.md).
    expect(claims.given_name).toBeUndefined();
    expect(claims.name).toBeUndefined();
    // How the user signed in: one factor.
    expect(claims.acr).toBe('1');
    expect(claims.amr).toBeUndefined(); // a sign-up's session names no factor of its own
    expect(claims.sid).toMatch(/^sess_/);
    expect(tokens.refresh_token).toMatch(/^ort_/);

    // RFC 9068: a resource server verifies the access token offline against the JWKS.
    expect(decodeProtectedHeader(tokens.access_token).typ).toBe('at+jwt');
    const jwks = await h.call('GET', `/fapi/${inst.instanceId}/.well-known/jwks.json`);
    const { payload } = await jwtVerify(tokens.access_token, createLocalJWKSet(jwks.body), { issuer: fapiUrlOf(inst), typ: 'at+jwt' });
    expect(payload).toMatchObject({ sub: userId, client_id: app.client_id, scope: 'openid profile email offline_access' });
    expect(typeof payload.jti).toBe('string');

    const info = await client.fetchUserInfo(config, tokens.access_token, userId);
    expect(info).toMatchObject({
      sub: userId,
      email: 'ada@example.com',
      email_verified: true,
      given_name: 'Ada',
      family_name: 'Lovelace',
      name: 'Ada Lovelace',
    });

    // Refresh rotates. A concurrent refresh (within the 10 s grace window) gets the same
    // successor; after it, the rotated token presented again revokes the whole grant.
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
    expect(refreshed.claims()!.sub).toBe(userId);
    expect((await client.refreshTokenGrant(config, tokens.refresh_token!)).refresh_token).toBe(refreshed.refresh_token);
    h.clock.advance(11_000);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    await expect(client.refreshTokenGrant(config, refreshed.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, refreshed.access_token)).active).toBe(false);
    await expect(client.fetchUserInfo(config, refreshed.access_token, userId)).rejects.toBeTruthy();

    // The consent is remembered: the same scopes again go straight back with a code.
    const again = await startCodeFlow(config, { scope: 'openid email' });
    const direct = await authorizeAs(browser, again.url, 'expect-none');
    expect(direct.searchParams.get('code')).toMatch(/^oac_/);
  });

  it('answers a public client with PKCE and no secret', async () => {
    const app = await createOAuthApp(h, inst, { public: true, consent_screen_enabled: false });
    expect(app.client_secret).toBeNull();
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    expect(tokens.claims()!.sub).toBe(userId);
    expect(tokens.refresh_token).toBeUndefined();
  });

  it('gives a refresh token for offline_access without prompt=consent when the app skips the consent screen', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false, scopes: ['openid', 'offline_access'] });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { scope: 'openid offline_access' });
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    expect(tokens.refresh_token).toMatch(/^ort_/);
  });

  it('refuses a wrong code_verifier, and a reused code revokes what its first use issued', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    await expect(
      client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: client.randomPKCECodeVerifier(),
        expectedState: flow.state,
        expectedNonce: flow.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });

    const second = await startCodeFlow(config);
    const cb = await authorizeAs(browser, second.url, 'expect-none');
    const tokens = await client.authorizationCodeGrant(config, cb, {
      pkceCodeVerifier: second.verifier,
      expectedState: second.state,
      expectedNonce: second.nonce,
    });
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(true);
    await expect(
      client.authorizationCodeGrant(config, cb, {
        pkceCodeVerifier: second.verifier,
        expectedState: second.state,
        expectedNonce: second.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
  });

  it('expires codes after a minute', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    h.clock.advance(61_000);
    await expect(
      client.authorizationCodeGrant(config, callback, {
        pkceCodeVerifier: flow.verifier,
        expectedState: flow.state,
        expectedNonce: flow.nonce,
      }),
    ).rejects.toMatchObject({ error: 'invalid_grant' });
  });

  it('sends a denial back to the client as access_denied with state and iss', async () => {
    const app = await createOAuthApp(h, inst);
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const callback = await authorizeAs(browser, flow.url, 'deny');
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(flow.state);
    expect(callback.searchParams.get('iss')).toBe(fapiUrlOf(inst));
  });
});

describe('consents', () => {
  it('lists the consent on the hosted profile, and revoking it ends the app’s tokens and asks again', async () => {
    const b = browserOf(h, inst);
    const { userId: grace } = await signUp(h, b, { email_address: 'grace.h@example.com', password: 'correct horse battery staple' });
    const app = await createOAuthApp(h, inst, { name: 'Revocable', scopes: ['openid', 'offline_access'] });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { scope: 'openid offline_access' });
    const callback = await authorizeAs(b, flow.url, 'allow');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });

    const grants = await b.call('GET', '/v1/me/oauth_grants');
    expect(grants.status).toBe(200);
    expect(grants.body.data).toHaveLength(1);
    expect(grants.body.data[0]).toMatchObject({
      application: { client_id: app.client_id, name: 'Revocable' },
      scopes: ['openid', 'offline_access'],
    });
    const grantId = grants.body.data[0].id;
    const given = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'oauth_grant.created'), eq(auditLogs.target, grantId)));
    expect(given).toHaveLength(1);

    const revoked = await b.call('DELETE', `/v1/me/oauth_grants/${grantId}`);
    expect(revoked.status).toBe(200);
    expect((await b.call('GET', '/v1/me/oauth_grants')).body.data).toHaveLength(0);
    const withdrawn = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'oauth_grant.revoked'), eq(auditLogs.target, grantId)));
    expect(withdrawn).toHaveLength(1);
    expect(withdrawn[0]!.actor).toMatch(/^session:/);
    await expect(client.refreshTokenGrant(config, tokens.refresh_token!)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    // Another user's grant is not found by this one.
    expect((await browser.call('DELETE', `/v1/me/oauth_grants/${grantId}`)).status).toBe(404);

    const again = await startCodeFlow(config, { scope: 'openid offline_access' });
    expect((await browserGet(h, b, again.url)).status).toBe(200);
    expect(grace).toBeTruthy();
  });

  it('shows the consent page in the language of ui_locales', async () => {
    const app = await createOAuthApp(h, inst, { name: 'Lokal' });
    const config = await relyingParty(h, inst, app);
    const fr = await browserGet(h, browser, (await startCodeFlow(config, { ui_locales: 'fr-CA fr' })).url);
    const html = await fr.text();
    expect(html).toContain('lang="fr"');
    expect(html).toContain('Autoriser Lokal à accéder à votre compte');
    const de = await browserGet(h, browser, (await startCodeFlow(config, { ui_locales: 'de' })).url);
    expect(await de.text()).toContain('Ihre E-Mail-Adresse sehen');
  });

  it('refuses a consent form posted from another origin', async () => {
    const app = await createOAuthApp(h, inst);
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const form = consentForm(await (await browserGet(h, browser, flow.url)).text());
    const res = await browserPost(
      h,
      browser,
      `/fapi/${inst.instanceId}/oauth2/consent`,
      { ...form, decision: 'allow' },
      'https://evil.example',
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('location')).toBeNull();
  });
});

describe('authorization errors', () => {
  it('shows an error page, never a redirect, for an unregistered redirect_uri or an unknown client', async () => {
    const app = await createOAuthApp(h, inst);
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { redirect_uri: 'https://evil.example.com/callback' });
    const res = await browserGet(h, browser, flow.url);
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(await res.text()).toContain('redirect_uri is not registered');

    const unknown = new URL(flow.url);
    unknown.searchParams.set('client_id', 'oa_01J0000000000000000000000');
    unknown.searchParams.set('redirect_uri', 'https://rp.example.com/callback');
    const res2 = await browserGet(h, browser, unknown);
    expect(res2.status).toBe(400);
    expect(res2.headers.get('location')).toBeNull();
  });

  it('refuses plain PKCE, back at the redirect_uri with state and iss', async () => {
    const app = await createOAuthApp(h, inst);
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { code_challenge_method: 'plain', code_challenge: client.randomPKCECodeVerifier() });
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('state')).toBe(flow.state);
    expect(callback.searchParams.get('iss')).toBe(fapiUrlOf(inst));
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('requires PKCE of a public client', async () => {
    const app = await createOAuthApp(h, inst, { public: true });
    const config = await relyingParty(h, inst, app);
    const url = client.buildAuthorizationUrl(config, { redirect_uri: 'https://rp.example.com/callback', scope: 'openid', state: 's1' });
    const callback = await authorizeAs(browser, url, 'expect-none');
    expect(callback.searchParams.get('error')).toBe('invalid_request');
  });

  it('answers prompt=none without a session with login_required, and without consent with consent_required', async () => {
    const app = await createOAuthApp(h, inst);
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { prompt: 'none' });
    const callback = await authorizeAs(null, flow.url, 'expect-none');
    expect(callback.searchParams.get('error')).toBe('login_required');
    expect(callback.searchParams.get('state')).toBe(flow.state);
    const consent = await authorizeAs(browser, flow.url, 'expect-none');
    expect(consent.searchParams.get('error')).toBe('consent_required');
  });

  it('refuses scopes the app may not ask for with invalid_scope', async () => {
    const app = await createOAuthApp(h, inst, { scopes: ['openid'] });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { scope: 'openid email' });
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    expect(callback.searchParams.get('error')).toBe('invalid_scope');
  });

  it('sends prompt=login to a fresh sign-in, and back to the client with login_required if none happened', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config, { prompt: 'login' });
    const res = await browserGet(h, browser, flow.url);
    const signIn = new URL(res.headers.get('location')!);
    expect(signIn.pathname).toBe(`/fapi/${inst.instanceId}/sign-in`);
    const back = new URL(signIn.searchParams.get('redirect_url')!);
    expect(back.searchParams.get('prompt')).toBeNull();
    h.clock.advance(1000);
    const stale = await authorizeAs(browser, back, 'expect-none');
    expect(stale.searchParams.get('error')).toBe('login_required');

    // Signing in again (the hosted page's password step) satisfies it: a code comes back.
    const b = browserOf(h, inst);
    const signedIn = await b.call('POST', '/v1/client/sign_ins', {
      body: { identifier: 'ada@example.com', strategy: 'password', password: 'correct horse battery staple' },
    });
    expect(signedIn.status, JSON.stringify(signedIn.body)).toBe(200);
    const fresh = await authorizeAs(b, back, 'expect-none');
    expect(fresh.searchParams.get('code')).toMatch(/^oac_/);
  });
});

describe('auth_after is the provider’s own', () => {
  /** The authorize answer of `browser` (signed in before the request): where it is sent. */
  const answer = async (url: URL) => {
    const res = await browserGet(h, browser, url);
    expect(res.status).toBe(302);
    return new URL(res.headers.get('location')!);
  };
  const toSignIn = (location: URL) => location.pathname === `/fapi/${inst.instanceId}/sign-in`;

  it('an RP’s auth_after does not waive the new sign-in of prompt=login or max_age', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const config = await relyingParty(h, inst, app);
    h.clock.advance(120_000);
    for (const extra of [{ prompt: 'login' }, { max_age: '60' }] as Record<string, string>[]) {
      for (const auth_after of ['1', String(h.clock.now() - 3_600_000), `1.${'A'.repeat(43)}`]) {
        const flow = await startCodeFlow(config, { ...extra, auth_after });
        const location = await answer(flow.url);
        expect(location.searchParams.get('code'), `${JSON.stringify(extra)} auth_after=${auth_after}`).toBeNull();
        expect(toSignIn(location)).toBe(true);
      }
    }
  });

  it('the provider’s own auth_after holds only for the request it was made for', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const config = await relyingParty(h, inst, app);
    const first = await startCodeFlow(config, { prompt: 'login' });
    const back = new URL((await answer(first.url)).searchParams.get('redirect_url')!);
    const ours = back.searchParams.get('auth_after')!;
    expect(ours).toMatch(/^\d+\.[A-Za-z0-9_-]{43}$/);

    // Moved to another request (its own state and PKCE challenge), or with an earlier time: a new sign-in is required.
    const second = await startCodeFlow(config, { prompt: 'login', auth_after: ours });
    expect(toSignIn(await answer(second.url))).toBe(true);
    const earlier = new URL(back);
    earlier.searchParams.set('auth_after', `1.${ours.split('.')[1]}`);
    expect(toSignIn(await answer(earlier))).toBe(true);

    // On its own request, a sign-in after it satisfies it.
    h.clock.advance(1000);
    const b = browserOf(h, inst);
    const signedIn = await b.call('POST', '/v1/client/sign_ins', {
      body: { identifier: 'ada@example.com', strategy: 'password', password: 'correct horse battery staple' },
    });
    expect(signedIn.status).toBe(200);
    const res = await browserGet(h, b, back);
    expect(new URL(res.headers.get('location')!).searchParams.get('code')).toMatch(/^oac_/);
  });
});

describe('max_age and introspection of refresh tokens', () => {
  it('sends a browser whose sign-in is older than max_age to sign in again, and reports auth_time', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false, scopes: ['openid', 'offline_access'] });
    const config = await relyingParty(h, inst, app);
    h.clock.advance(120_000);
    const old = await startCodeFlow(config, { max_age: '60', scope: 'openid' });
    const res = await browserGet(h, browser, old.url);
    expect(res.status).toBe(302);
    expect(new URL(res.headers.get('location')!).pathname).toBe(`/fapi/${inst.instanceId}/sign-in`);

    const fresh = await startCodeFlow(config, { max_age: '86400', scope: 'openid offline_access' });
    const callback = await authorizeAs(browser, fresh.url, 'expect-none');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: fresh.verifier,
      expectedState: fresh.state,
      expectedNonce: fresh.nonce,
      maxAge: 86400,
    });
    const [session] = (await browser.call('GET', '/v1/client')).body.sessions;
    expect(tokens.claims()!.auth_time).toBe(Math.floor(session.created_at / 1000));

    const intro = await client.tokenIntrospection(config, tokens.refresh_token!);
    expect(intro).toMatchObject({ active: true, client_id: app.client_id, sub: userId, token_type: 'refresh_token' });
    const other = await relyingParty(h, inst, await createOAuthApp(h, inst));
    expect((await client.tokenIntrospection(other, tokens.refresh_token!)).active).toBe(false);
    const pub = await relyingParty(h, inst, await createOAuthApp(h, inst, { public: true }));
    await expect(client.tokenIntrospection(pub, tokens.access_token)).rejects.toBeTruthy();
  });
});

describe('client credentials and client authentication', () => {
  it('issues an access token without an ID token to a confidential app, by Basic and by post', async () => {
    const app = await createOAuthApp(h, inst, { scopes: ['openid', 'orders:read', 'orders:write'] });
    const config = await relyingParty(h, inst, app);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
    expect(tokens.id_token).toBeUndefined();
    expect(tokens.scope).toBe('orders:read');
    const intro = await client.tokenIntrospection(config, tokens.access_token);
    expect(intro).toMatchObject({ active: true, client_id: app.client_id, sub: app.client_id, scope: 'orders:read' });

    const posted = await relyingParty(h, inst, app, client.ClientSecretPost(app.client_secret!));
    expect((await client.clientCredentialsGrant(posted)).scope).toBe('orders:read orders:write');
    await expect(client.clientCredentialsGrant(config, { scope: 'openid' })).rejects.toMatchObject({ error: 'invalid_scope' });
  });

  it('refuses a wrong secret with 401 invalid_client and WWW-Authenticate: Basic, and audits it', async () => {
    const app = await createOAuthApp(h, inst);
    const basic = Buffer.from(`${app.client_id}:wrong`).toString('base64');
    const res = await h.request('POST', `/fapi/${inst.instanceId}/oauth2/token`, {
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'grant_type=client_credentials',
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.json()).toMatchObject({ error: 'invalid_client' });
    const rows = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'oauth_client.authentication_failed'), eq(auditLogs.target, app.client_id)));
    expect(rows).toHaveLength(1);
    expect(rows[0]!.actorKind).toBe('oauth_client');

    const config = await relyingParty(h, inst, { client_id: app.client_id, client_secret: 'oas_wrong' });
    await expect(client.clientCredentialsGrant(config)).rejects.toMatchObject({ name: 'WWWAuthenticateChallengeError', status: 401 });
  });

  it('form-decodes Basic credentials (RFC 6749 §2.3.1) and refuses public clients', async () => {
    const app = await createOAuthApp(h, inst, { scopes: ['api'] });
    const basic = Buffer.from(`${encodeURIComponent(app.client_id)}:${encodeURIComponent(app.client_secret!)}`).toString('base64');
    const ok = await h.request('POST', `/fapi/${inst.instanceId}/oauth2/token`, {
      headers: { authorization: `Basic ${basic}`, 'content-type': 'application/x-www-form-urlencoded' },
      raw: 'grant_type=client_credentials',
    });
    expect(ok.status).toBe(200);
    const pub = await createOAuthApp(h, inst, { public: true });
    const res = await h.request('POST', `/fapi/${inst.instanceId}/oauth2/token`, {
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      raw: `grant_type=client_credentials&client_id=${pub.client_id}`,
    });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe('unauthorized_client');
  });

  it('answers unsupported grant types and repeated parameters as RFC 6749 says', async () => {
    const app = await createOAuthApp(h, inst);
    const basic = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
    const post = (raw: string) =>
      h.request('POST', `/fapi/${inst.instanceId}/oauth2/token`, {
        headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' },
        raw,
      });
    const unsupported = await post('grant_type=password&username=a&password=b');
    expect(unsupported.status).toBe(400);
    expect((await unsupported.json()).error).toBe('unsupported_grant_type');
    const repeated = await post('grant_type=client_credentials&grant_type=client_credentials');
    expect(repeated.status).toBe(400);
    expect((await repeated.json()).error).toBe('invalid_request');
  });
});

describe('revocation, userinfo errors and logout', () => {
  it('revokes an access token (RFC 7009) so that introspection and userinfo refuse it', async () => {
    const app = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const callback = await authorizeAs(browser, flow.url, 'expect-none');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });
    await client.tokenRevocation(config, tokens.access_token);
    expect((await client.tokenIntrospection(config, tokens.access_token)).active).toBe(false);
    const res = await h.request('GET', `/fapi/${inst.instanceId}/oauth2/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toContain('error="invalid_token"');
    // An expired token is inactive too.
    const fresh = await client.clientCredentialsGrant(await relyingParty(h, inst, await createOAuthApp(h, inst, { scopes: ['api'] })));
    h.clock.advance(16 * 60_000);
    expect((await client.tokenIntrospection(config, fresh.access_token)).active).toBe(false);
  });

  it('answers userinfo without a token with 401 and WWW-Authenticate: Bearer', async () => {
    const res = await h.request('GET', `/fapi/${inst.instanceId}/oauth2/userinfo`);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('ends the session and returns to a registered post_logout_redirect_uri with state', async () => {
    const b = browserOf(h, inst);
    await signUp(h, b, { email_address: 'grace@example.com', password: 'correct horse battery staple' });
    const app = await createOAuthApp(h, inst, {
      consent_screen_enabled: false,
      post_logout_redirect_uris: ['https://rp.example.com/signed-out'],
    });
    const config = await relyingParty(h, inst, app);
    const flow = await startCodeFlow(config);
    const callback = await authorizeAs(b, flow.url, 'expect-none');
    const tokens = await client.authorizationCodeGrant(config, callback, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
    });

    const unregistered = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'https://evil.example.com/',
      state: 'x',
    });
    expect((await browserGet(h, b, unregistered)).status).toBe(400);

    const url = client.buildEndSessionUrl(config, {
      id_token_hint: tokens.id_token!,
      post_logout_redirect_uri: 'https://rp.example.com/signed-out',
      state: 'bye',
    });
    const res = await browserGet(h, b, url);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://rp.example.com/signed-out?state=bye');
    const after = await b.call('GET', '/v1/client');
    expect(after.body.session).toBeNull();
  });
});
