import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authorizationRequest,
  Browser,
  codeFlow,
  expectCallbackError,
  POST_LOGOUT_REDIRECT_URI,
  random,
  startOp,
  type Op,
} from '../../testing/oidc-conformance';

/**
 * The Config OP plan (oidcc-config-certification-test-plan: oidcc-discovery-endpoint-verification)
 * and the RP-Initiated Logout OP plan (oidcc-rp-initiated-logout-certification-test-plan), one
 * test per module, over a real socket. The socket is plain http on the loopback: the suite's
 * CheckDiscEndpointAllEndpointsAreHttps is asserted as "every endpoint is under the issuer",
 * which is https wherever PUBLIC_URL or a custom domain is (docs/oidc-provider.md).
 */
let op: Op;
beforeAll(async () => {
  op = await startOp();
}, 120_000);
afterAll(() => op?.close());

const UI_ERRORS = ['login_required', 'interaction_required', 'consent_required', 'account_selection_required'];

describe('Config OP', () => {
  it('oidcc-discovery-endpoint-verification', async () => {
    const res = await fetch(`${op.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const d = op.discovery;
    expect(d.issuer).toBe(op.issuer);
    expect(d.response_types_supported).toContain('code');
    expect(d.subject_types_supported).toEqual(expect.arrayContaining(['public']));
    expect(d.id_token_signing_alg_values_supported).toContain('RS256');
    for (const k of [
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
      'end_session_endpoint',
      'revocation_endpoint',
      'introspection_endpoint',
    ] as const) {
      expect(String(d[k]).startsWith(`${op.issuer}/`), k).toBe(true);
    }
    const jwks = await (await fetch(d.jwks_uri)).json();
    expect(jwks.keys.length).toBeGreaterThan(0);
    for (const k of jwks.keys) {
      expect(k.kty).toBe('RSA');
      expect(k.kid).toEqual(expect.any(String));
      expect(k.d ?? k.p ?? k.q ?? k.dp ?? k.dq ?? k.qi ?? k.k).toBeUndefined();
    }
    expect(d.request_object_signing_alg_values_supported).toContain('RS256');
    expect(d.claims_parameter_supported).toBe(true);
    expect(Array.isArray(d.claims_supported)).toBe(true);
    expect(d.grant_types_supported).toEqual(expect.arrayContaining(['authorization_code']));
    expect(d.scopes_supported).toContain('openid');
    for (const s of d.scopes_supported as string[]) expect(s).toMatch(/^[\x21\x23-\x5B\x5D-\x7E]+$/);
    for (const l of d.ui_locales_supported as string[]) expect(l).toMatch(/^[a-z]{2,3}(-[A-Z]{2})?$/);
    expect(Array.isArray(d.code_challenge_methods_supported)).toBe(true);
  });
});

/** The suite's logout flow: a first authorization, the end_session request, then prompt=none, which must need the user again. */
async function logoutThen(b: Browser, params: (idToken: string) => Record<string, string>) {
  const first = await codeFlow(op, b);
  const url = new URL(op.discovery.end_session_endpoint);
  for (const [k, v] of Object.entries(params(first.tokens.id_token!))) url.searchParams.set(k, v);
  let res = await b.request('GET', url.toString());
  // Without a valid hint the user confirms on a page (a form posted to end_session).
  if (res.status === 200) {
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html);
    if (action) {
      const fields = Object.fromEntries(
        [...html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!.replace(/&amp;/g, '&')]),
      );
      res = await b.request('POST', action[1]!.replace(/&amp;/g, '&'), fields, { origin: new URL(op.issuer).origin });
    } else {
      return { first, res, html };
    }
  }
  return { first, res, html: res.status === 200 ? await res.text() : '' };
}

async function expectSignedOut(b: Browser) {
  const req = authorizationRequest(op, { prompt: 'none' });
  expectCallbackError(op, await b.authorize(req.url), req.params.state, UI_ERRORS);
}

describe('RP-Initiated Logout OP', () => {
  it('oidcc-rp-initiated-logout-discovery-endpoint-verification', () => {
    expect(op.discovery.end_session_endpoint).toBe(`${op.issuer}/oauth2/end_session`);
  });

  it('oidcc-rp-initiated-logout (a browser holding two sessions: both end)', async () => {
    const b = new Browser(op);
    await codeFlow(op, b);
    op.server.h.clock.advance(2_000);
    // A second session on the same browser (prompt=login signs in again).
    await codeFlow(op, b, { prompt: 'login' });
    const state = random(96);
    const { res } = await logoutThen(b, (idToken) => ({
      id_token_hint: idToken,
      post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI,
      state,
    }));
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(POST_LOGOUT_REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(state);
    await expectSignedOut(b);
  });

  it('oidcc-rp-initiated-logout-bad-post-logout-redirect-uri', async () => {
    const b = new Browser(op);
    const { res } = await logoutThen(b, (idToken) => ({
      id_token_hint: idToken,
      post_logout_redirect_uri: 'https://rp.conformance.test/not-registered',
      state: random(),
    }));
    // Never a redirect to an unregistered URI: an error page.
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('oidcc-rp-initiated-logout-modified-id-token-hint', async () => {
    const b = new Browser(op);
    const { res } = await logoutThen(b, (idToken) => {
      const [h, p, s] = idToken.split('.');
      const sig = Buffer.from(s!, 'base64url');
      sig[0] = sig[0]! ^ 0xff;
      return {
        id_token_hint: `${h}.${p}.${sig.toString('base64url')}`,
        post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI,
        state: random(),
      };
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('oidcc-rp-initiated-logout-no-id-token-hint', async () => {
    const b = new Browser(op);
    const state = random();
    const { res } = await logoutThen(b, () => ({
      client_id: op.client.client_id,
      post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI,
      state,
    }));
    // The user confirmed; then back to the RP with its state.
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(POST_LOGOUT_REDIRECT_URI);
    expect(back.searchParams.get('state')).toBe(state);
    await expectSignedOut(b);
  });

  it('oidcc-rp-initiated-logout-no-params', async () => {
    const b = new Browser(op);
    const { res } = await logoutThen(b, () => ({}));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    await expectSignedOut(b);
  });

  it('oidcc-rp-initiated-logout-no-post-logout-redirect-uri', async () => {
    const b = new Browser(op);
    const { res } = await logoutThen(b, (idToken) => ({ id_token_hint: idToken }));
    expect(res.status).toBe(200);
    await expectSignedOut(b);
  });

  it('oidcc-rp-initiated-logout-no-state', async () => {
    const b = new Browser(op);
    const { res } = await logoutThen(b, (idToken) => ({ id_token_hint: idToken, post_logout_redirect_uri: POST_LOGOUT_REDIRECT_URI }));
    expect(res.status).toBe(302);
    const back = new URL(res.headers.get('location')!);
    expect(back.origin + back.pathname).toBe(POST_LOGOUT_REDIRECT_URI);
    expect(back.searchParams.has('state')).toBe(false);
    await expectSignedOut(b);
  });

  it('oidcc-rp-initiated-logout-only-state', async () => {
    const b = new Browser(op);
    const { res } = await logoutThen(b, (idToken) => ({ id_token_hint: idToken, state: random() }));
    // No post_logout_redirect_uri: the OP's own page, no redirect.
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
    await expectSignedOut(b);
  });
});
