import { generateKeyPair, exportJWK, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationRequest,
  Browser,
  callToken,
  callUserInfo,
  codeFlow,
  exchangeCode,
  expectCallbackError,
  expectCode,
  random,
  REDIRECT_URI,
  s256,
  startOp,
  validateIdToken,
  validateUserInfo,
  type Callback,
  type Op,
} from '../../testing/oidc-conformance';

/**
 * The OpenID Foundation's Basic OP plan (oidcc-basic-certification-test-plan), one test per
 * module, with the suite's conditions as assertions; run twice: response_mode default (the
 * Basic OP plan) and form_post (the Form Post OP plan, oidcc-formpost-basic-certification-test-plan,
 * the same modules with the answer posted by the browser).
 */
let op: Op;
beforeAll(async () => {
  op = await startOp();
}, 120_000);
afterAll(() => op?.close());

const unsignedRequestObject = (claims: Record<string, unknown>) => new UnsecuredJWT(claims).encode();

describe.each([
  { plan: 'Basic OP', mode: undefined },
  { plan: 'Form Post OP', mode: 'form_post' },
])('$plan', ({ mode }) => {
  const m = { response_mode: mode };

  it('oidcc-server', async () => {
    const b = new Browser(op);
    const { tokens, idToken } = await codeFlow(op, b, m);
    expect(idToken.sub).toBe(op.user.id);
    validateUserInfo(await callUserInfo(op, tokens.access_token), idToken, 'openid');
  });

  it('oidcc-server-client-secret-post', async () => {
    const { tokens } = await codeFlow(op, new Browser(op), m, { tokenAuth: 'client_secret_post' });
    expect(tokens.scope.split(' ')).toContain('openid');
  });

  it('oidcc-response-type-missing', async () => {
    const req = authorizationRequest(op, { ...m, response_type: undefined });
    const answer = await new Browser(op).authorize(req.url);
    expectCallbackError(op, answer, req.params.state, ['invalid_request', 'unsupported_response_type']);
  });

  it('oidcc-idtoken-signature', async () => {
    // codeFlow verifies the signature with the one published key its kid names; the set has no private parts.
    await codeFlow(op, new Browser(op), m);
    const jwks = await (await fetch(op.discovery.jwks_uri)).json();
    for (const k of jwks.keys) expect(k.d ?? k.p ?? k.q ?? k.k).toBeUndefined();
  });

  it('oidcc-idtoken-unsigned (skipped by the suite: `none` is not an advertised ID token alg)', () => {
    expect(op.discovery.id_token_signing_alg_values_supported).toEqual(['RS256']);
  });

  it('oidcc-userinfo-get', async () => {
    const { tokens, idToken } = await codeFlow(op, new Browser(op), m);
    validateUserInfo(await callUserInfo(op, tokens.access_token, 'get'), idToken, 'openid');
  });

  it('oidcc-userinfo-post-header', async () => {
    const { tokens, idToken } = await codeFlow(op, new Browser(op), m);
    validateUserInfo(await callUserInfo(op, tokens.access_token, 'post-header'), idToken, 'openid');
  });

  it('oidcc-userinfo-post-body', async () => {
    const { tokens, idToken } = await codeFlow(op, new Browser(op), m);
    validateUserInfo(await callUserInfo(op, tokens.access_token, 'post-body'), idToken, 'openid');
  });

  it('oidcc-ensure-request-without-nonce-succeeds-for-code-flow', async () => {
    const { idToken } = await codeFlow(op, new Browser(op), { ...m, nonce: undefined });
    expect(idToken.nonce).toBeUndefined();
  });

  for (const scope of ['profile', 'email', 'address', 'phone', 'profile email address phone']) {
    const name = scope.includes(' ') ? 'all' : scope;
    it(`oidcc-scope-${name}`, async () => {
      expect(op.discovery.scopes_supported).toEqual(expect.arrayContaining(scope.split(' ')));
      const full = `openid ${scope}`;
      const { tokens, idToken } = await codeFlow(op, new Browser(op), { ...m, scope: full });
      const userinfo = await callUserInfo(op, tokens.access_token);
      validateUserInfo(userinfo, idToken, full);
      // Core §5.4: with an access token, the scopes' claims are UserInfo's; only email stays in the ID token (documented).
      for (const claim of ['name', 'address', 'phone_number', 'birthdate']) expect(idToken[claim]).toBeUndefined();
    });
  }

  it('oidcc-ensure-other-scope-order-succeeds', async () => {
    const { tokens, idToken } = await codeFlow(op, new Browser(op), { ...m, scope: 'email openid' });
    validateUserInfo(await callUserInfo(op, tokens.access_token), idToken, 'email openid');
  });

  it('oidcc-display-page', async () => {
    await codeFlow(op, new Browser(op), { ...m, display: 'page' });
  });

  it('oidcc-display-popup', async () => {
    await codeFlow(op, new Browser(op), { ...m, display: 'popup' });
  });

  it('oidcc-prompt-login', async () => {
    const b = new Browser(op);
    const first = await codeFlow(op, b, m);
    op.server.h.clock.advance(2_000);
    const second = await codeFlow(op, b, { ...m, prompt: 'login' });
    // A real new sign-in: the hosted page is asked for one (it then offers no "Continue"), and auth_time moves.
    expect(second.answer.signIns).toHaveLength(1);
    expect(second.answer.signIns[0]!.searchParams.get('prompt')).toBe('login');
    expect(second.idToken.sub).toBe(first.idToken.sub);
    expect(second.idToken.auth_time as number).toBeGreaterThan(first.idToken.auth_time as number);
  });

  it('oidcc-prompt-none-not-logged-in', async () => {
    const req = authorizationRequest(op, { ...m, prompt: 'none' });
    const answer = await new Browser(op).authorize(req.url);
    expectCallbackError(op, answer, req.params.state, [
      'login_required',
      'interaction_required',
      'consent_required',
      'account_selection_required',
    ]);
    expect((answer as Callback).signIns).toHaveLength(0);
  });

  it('oidcc-prompt-none-logged-in', async () => {
    const b = new Browser(op);
    const first = await codeFlow(op, b, m);
    const second = await codeFlow(op, b, { ...m, prompt: 'none' });
    expect(second.answer.signIns).toHaveLength(0);
    expect(second.idToken.sub).toBe(first.idToken.sub);
  });

  it('oidcc-max-age-1', async () => {
    const b = new Browser(op);
    const first = await codeFlow(op, b, m);
    op.server.h.clock.advance(2_000);
    const second = await codeFlow(op, b, { ...m, max_age: '1' });
    expect(second.answer.signIns).toHaveLength(1);
    expect(second.answer.signIns[0]!.searchParams.get('prompt')).toBe('login');
    expect(second.idToken.auth_time as number).toBeGreaterThan(first.idToken.auth_time as number);
  });

  it('oidcc-max-age-10000', async () => {
    const b = new Browser(op);
    const first = await codeFlow(op, b, m);
    op.server.h.clock.advance(2_000);
    const second = await codeFlow(op, b, { ...m, max_age: '10000' });
    expect(second.answer.signIns).toHaveLength(0);
    expect(second.idToken.auth_time).toBe(first.idToken.auth_time);
  });

  it('oidcc-ensure-request-with-unknown-parameter-succeeds', async () => {
    await codeFlow(op, new Browser(op), { ...m, extra_param: 'foobar' });
  });

  it('oidcc-id-token-hint', async () => {
    const b = new Browser(op);
    const first = await codeFlow(op, b, m);
    const second = await codeFlow(op, b, { ...m, prompt: 'none', id_token_hint: first.tokens.id_token! });
    expect(second.idToken.sub).toBe(first.idToken.sub);
  });

  it('oidcc-login-hint', async () => {
    await codeFlow(op, new Browser(op), { ...m, login_hint: op.user.email });
  });

  it('oidcc-ui-locales', async () => {
    await codeFlow(op, new Browser(op), { ...m, ui_locales: 'se' });
  });

  it('oidcc-claims-locales', async () => {
    await codeFlow(op, new Browser(op), { ...m, claims_locales: 'se' });
  });

  it('oidcc-ensure-request-with-acr-values-succeeds', async () => {
    const advertised = op.discovery.acr_values_supported as string[];
    expect(advertised.length).toBeGreaterThan(0);
    const { idToken } = await codeFlow(op, new Browser(op), { ...m, acr_values: advertised.join(' ') });
    // ValidateIdTokenACRClaimAgainstAcrValuesRequest (a WARNING in the suite): one of the requested values.
    expect(advertised).toContain(idToken.acr);
    expect(idToken.amr).toEqual(['pwd']);
  });

  it('oidcc-codereuse', async () => {
    const req = authorizationRequest(op, m);
    const code = expectCode(op, await new Browser(op).authorize(req.url), req.params.state);
    await exchangeCode(op, code);
    const again = await callToken(op, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
  });

  it('oidcc-codereuse-30seconds', async () => {
    const req = authorizationRequest(op, m);
    const code = expectCode(op, await new Browser(op).authorize(req.url), req.params.state);
    const tokens = await exchangeCode(op, code);
    op.server.h.clock.advance(30_000);
    const again = await callToken(op, { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI });
    expect(again.status).toBe(400);
    expect(again.body.error).toBe('invalid_grant');
    // OP-OAuth-2nd-Revokes: the access token the code gave is revoked (a WARNING in the suite if not).
    const res = await fetch(op.discovery.userinfo_endpoint, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toMatch(/^Bearer /);
  });

  it('oidcc-ensure-registered-redirect-uri', async () => {
    const req = authorizationRequest(op, { ...m, redirect_uri: 'https://rp.conformance.test/not-registered' });
    const answer = await new Browser(op).authorize(req.url);
    // Never a redirect to an unregistered URI: an error page the user sees.
    expect(answer.kind).toBe('error-page');
    expect(answer.kind === 'error-page' && answer.status).toBe(400);
  });

  it('oidcc-ensure-post-request-succeeds', async () => {
    const { idToken } = await codeFlow(op, new Browser(op), m, { form: true });
    expect(idToken.sub).toBe(op.user.id);
  });

  it('oidcc-request-uri-unsigned-supported-correctly-or-rejected-as-unsupported', async () => {
    expect(op.discovery.request_uri_parameter_supported).toBe(false);
    const req = authorizationRequest(op, { ...m, request_uri: 'https://rp.conformance.test/request.jwt' });
    const answer = await new Browser(op).authorize(req.url);
    expectCallbackError(op, answer, req.params.state, ['request_uri_not_supported']);
  });

  it('oidcc-unsigned-request-object-supported-correctly-or-rejected-as-unsupported', async () => {
    expect(op.discovery.request_parameter_supported).toBe(true);
    expect(op.discovery.request_object_signing_alg_values_supported).toEqual(expect.arrayContaining(['none', 'RS256']));
    const state = random();
    const nonce = random();
    const object = unsignedRequestObject({
      client_id: op.client.client_id,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state,
      nonce,
      ...(mode ? { response_mode: mode } : {}),
      iss: op.client.client_id,
      aud: op.issuer,
    });
    // The query carries only what Core §6.1 requires beside the request object.
    const url = new URL(op.discovery.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: op.client.client_id,
      response_type: 'code',
      scope: 'openid',
      request: object,
    }).toString();
    const answer = await new Browser(op).authorize(url.toString());
    const code = expectCode(op, answer, state);
    if (mode) expect((answer as Callback).via).toBe('form_post');
    const tokens = await exchangeCode(op, code);
    await validateIdToken(op, tokens.id_token, { nonce });
  });

  it('oidcc-claims-essential', async () => {
    const claims = JSON.stringify({ userinfo: { name: { essential: true } } });
    const { tokens, idToken } = await codeFlow(op, new Browser(op), { ...m, claims });
    expect(op.discovery.claims_parameter_supported).toBe(true);
    const userinfo = await callUserInfo(op, tokens.access_token);
    validateUserInfo(userinfo, idToken, 'openid');
    // EnsureUserInfoContainsName, EnsureIdTokenDoesNotContainName: both WARNINGs in the suite.
    expect(userinfo.name).toBe('Grace Hopper');
    expect(idToken.name).toBeUndefined();
  });

  it('oidcc-ensure-request-object-with-redirect-uri', async () => {
    const state = random();
    const nonce = random();
    const object = unsignedRequestObject({
      client_id: op.client.client_id,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state,
      nonce,
      ...(mode ? { response_mode: mode } : {}),
    });
    const url = new URL(op.discovery.authorization_endpoint);
    // The query's redirect_uri is not registered: the request object's supersedes it.
    url.search = new URLSearchParams({
      client_id: op.client.client_id,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: 'https://rp.conformance.test/wrong',
      request: object,
    }).toString();
    const answer = await new Browser(op).authorize(url.toString());
    const code = expectCode(op, answer, state);
    await validateIdToken(op, (await exchangeCode(op, code)).id_token, { nonce });
  });

  it('oidcc-refresh-token', async () => {
    const { tokens, idToken } = await codeFlow(op, new Browser(op), { ...m, scope: 'openid offline_access', prompt: 'consent' });
    expect(tokens.refresh_token).toMatch(/^[\x20-\x7E]+$/);
    // Another client's refresh token is refused.
    const stolen = await callToken(op, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! }, { client: op.client2 });
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    const refreshed = await callToken(op, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! });
    expect(refreshed.status, JSON.stringify(refreshed.body)).toBe(200);
    expect(refreshed.headers.get('cache-control')).toBe('no-store');
    const second = await validateIdToken(op, refreshed.body.id_token, {});
    // OIDC Core §12.2: the same iss, sub, aud and auth_time; azp if present the client.
    for (const claim of ['iss', 'sub', 'aud', 'auth_time', 'acr', 'amr'] as const) expect(second[claim]).toEqual(idToken[claim]);
    validateUserInfo(await callUserInfo(op, refreshed.body.access_token), second, 'openid');
  });

  it('oidcc-ensure-request-with-valid-pkce-succeeds', async () => {
    const verifier = random(32);
    const { idToken } = await codeFlow(
      op,
      new Browser(op),
      { ...m, code_challenge: s256(verifier), code_challenge_method: 'S256' },
      { verifier },
    );
    expect(idToken.sub).toBe(op.user.id);
  });
});

describe('request objects signed with RS256 (OIDC Core §6.1; the Dynamic OP plan’s oidcc-request-object-signed-rs256 on a static client)', () => {
  it('verifies the object with the client’s jwks, refuses a foreign signature and alg HS256', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'rp-1', alg: 'RS256', use: 'sig' };
    const res = await fetch(`${op.server.apiUrl}/v1/oauth_applications/${op.client2.client_id}`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jwks: { keys: [jwk] } }),
    });
    expect(res.status).toBe(200);
    expect((await res.json()).jwks.keys[0].kid).toBe('rp-1');

    const sign = async (key: CryptoKey, claims: Record<string, unknown>) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'rp-1' })
        .setIssuer(op.client2.client_id)
        .setAudience(op.issuer)
        .setIssuedAt(Math.floor(op.server.h.clock.now() / 1000))
        .sign(key);
    const state = random();
    const nonce = random();
    const object = await sign(privateKey, {
      client_id: op.client2.client_id,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state,
      nonce,
    });
    const url = new URL(op.discovery.authorization_endpoint);
    url.search = new URLSearchParams({
      client_id: op.client2.client_id,
      response_type: 'code',
      scope: 'openid',
      request: object,
    }).toString();
    const code = expectCode(op, await new Browser(op).authorize(url.toString()), state);
    await validateIdToken(op, (await exchangeCode(op, code, {}, { client: op.client2 })).id_token, { nonce, client: op.client2 });

    const other = await generateKeyPair('RS256');
    const forged = await sign(other.privateKey, {
      client_id: op.client2.client_id,
      response_type: 'code',
      scope: 'openid',
      redirect_uri: REDIRECT_URI,
      state,
    });
    url.searchParams.set('request', forged);
    expectCallbackError(op, await new Browser(op).authorize(url.toString()), undefined, ['invalid_request_object']);
  });
});
