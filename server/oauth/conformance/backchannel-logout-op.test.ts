import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../../http/actor';
import { startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../../testing/webhook-receiver';
import {
  authorizationRequest,
  Browser,
  codeFlow,
  expectCallbackError,
  POST_LOGOUT_REDIRECT_URI,
  random,
  REDIRECT_URI,
  serverJwks,
  startOp,
  type Op,
  type StaticClient,
} from '../../testing/oidc-conformance';
import { runBackchannelLogoutsOnce } from '../backchannel-logout';
import { createInitialAccessToken } from '../initial-access-tokens';

/**
 * The Back-Channel Logout OP plan (oidcc-backchannel-rp-initiated-logout-certification-test-plan):
 * oidcc-backchannel-logout-discovery-endpoint-verification and oidcc-backchannel-rp-initiated-logout,
 * the latter with a static client and with one registered dynamically (the plan lets the tester
 * pick), over a real socket. The suite's backchannel_logout_uri is a loopback receiver (the
 * server runs with ALLOW_PRIVATE_TARGETS=1); the webhook worker's round delivers, as `npm start` does.
 * Each condition the module calls is an assertion (WARNING ones included).
 */
let op: Op;
let rp: WebhookReceiver;
beforeAll(async () => {
  op = await startOp({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  rp = await startWebhookReceiver();
}, 120_000);
afterAll(async () => {
  await rp?.close();
  await op?.close();
});

const BACKCHANNEL_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

describe('Back-Channel Logout OP', () => {
  it('oidcc-backchannel-logout-discovery-endpoint-verification', () => {
    // CheckDiscEndpointBackchannelLogoutSupported, CheckDiscEndpointBackchannelLogoutSessionSupported, CheckDiscEndSessionEndpoint.
    expect(op.discovery.backchannel_logout_supported).toBe(true);
    expect(op.discovery.backchannel_logout_session_supported).toBe(true);
    expect(op.discovery.end_session_endpoint).toBe(`${op.issuer}/oauth2/end_session`);
  });

  /** CreateBackchannelLogoutUri: the redirect URL with its last segment replaced by /backchannel_logout. */
  const staticClient = async (path: string): Promise<StaticClient> => {
    const res = await fetch(`${op.server.apiUrl}/v1/oauth_applications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Back-channel RP',
        redirect_uris: [REDIRECT_URI],
        post_logout_redirect_uris: [POST_LOGOUT_REDIRECT_URI],
        backchannel_logout_uri: `${rp.url}${path}`,
        backchannel_logout_session_required: true,
      }),
    });
    expect(res.status).toBe(201);
    return (await res.json()) as StaticClient;
  };

  /** The dynamic variant: AddBackchannelLogoutSessionRequiredTrueToDynamicRegistrationRequest, AddBackchannelLogoutUriToDynamicRegistrationRequest. */
  const dynamicClient = async (path: string): Promise<StaticClient> => {
    const iat = await createInitialAccessToken(
      op.server.h.runtime.deps,
      op.instance.instanceId,
      { name: 'suite', expires_in_seconds: 600, max_uses: 1 },
      systemContext('test'),
    );
    const res = await fetch(op.discovery.registration_endpoint as string, {
      method: 'POST',
      headers: { authorization: `Bearer ${iat.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: 'Back-channel RP (dynamic)',
        redirect_uris: [REDIRECT_URI],
        post_logout_redirect_uris: [POST_LOGOUT_REDIRECT_URI],
        backchannel_logout_uri: `${rp.url}${path}`,
        backchannel_logout_session_required: true,
        token_endpoint_auth_method: 'client_secret_basic',
      }),
    });
    const body = (await res.json()) as StaticClient & Record<string, unknown>;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ backchannel_logout_uri: `${rp.url}${path}`, backchannel_logout_session_required: true });
    return body;
  };

  /** validateLogoutResults: the back-channel request and the front-channel redirect, with the conditions the module calls. */
  async function expectLogout(request: ReceivedWebhook, client: StaticClient, idToken: JWTPayload) {
    // ExtractLogoutTokenFromBackchannelLogoutRequest: a form post carrying logout_token.
    expect(request.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    const form = new URLSearchParams(request.body);
    // CheckForUnexpectedParametersInBackchannelLogoutRequest (WARNING): nothing but logout_token.
    expect([...form.keys()]).toEqual(['logout_token']);
    const token = form.get('logout_token')!;
    // ValidateLogoutTokenSignature: RS256, a kid of the OP's JWKS.
    const header = decodeProtectedHeader(token);
    expect(header.alg).toBe('RS256');
    expect(header.typ).toBe('logout+jwt');
    const keys = await serverJwks(op, true);
    expect(keys.keys.filter((k) => k.kid === header.kid)).toHaveLength(1);
    const { payload } = await jwtVerify(token, createLocalJWKSet(keys), { currentDate: new Date(op.server.h.clock.now()) });
    // ValidateLogoutTokenClaims: iss, aud, iat (not in the future, 5 min skew), jti, events with exactly the one empty member.
    expect(payload.iss).toBe(op.issuer);
    expect(Array.isArray(payload.aud) ? payload.aud : [payload.aud]).toContain(client.client_id);
    expect(typeof payload.iat).toBe('number');
    expect(payload.iat!).toBeLessThanOrEqual(Math.floor(op.server.h.clock.now() / 1000) + 300);
    expect(payload.jti).toEqual(expect.any(String));
    expect(payload.events).toEqual({ [BACKCHANNEL_EVENT]: {} });
    // CheckIdTokenSubMatchesLogoutToken, CheckIdTokenSidMatchesLogoutToken, CheckLogoutTokenNoNonce, CheckLogoutTokenHasSubOrSid.
    expect(payload.sub).toBe(idToken.sub);
    expect(idToken.sid, 'the ID token carries sid (backchannel_logout_session_supported)').toEqual(expect.any(String));
    expect(payload.sid).toBe(idToken.sid);
    expect(payload.nonce).toBeUndefined();
    expect(payload.sub ?? payload.sid).toBeDefined();
  }

  for (const registration of ['static_client', 'dynamic_client'] as const) {
    it(`oidcc-backchannel-rp-initiated-logout (${registration})`, async () => {
      const path = `/backchannel_logout/${registration}`;
      const client = registration === 'static_client' ? await staticClient(path) : await dynamicClient(path);
      const b = new Browser(op);
      const first = await codeFlow(op, b, {}, { client });

      // The browser goes to the end_session_endpoint with the ID token as hint.
      const state = random();
      const url = new URL(op.discovery.end_session_endpoint);
      url.searchParams.set('id_token_hint', first.tokens.id_token!);
      url.searchParams.set('post_logout_redirect_uri', POST_LOGOUT_REDIRECT_URI);
      url.searchParams.set('state', state);
      const res = await b.request('GET', url.toString());
      expect(res.status).toBe(302);
      // CheckPostLogoutState; CheckForUnexpectedParametersInPostLogoutRedirect (WARNING): only state.
      const back = new URL(res.headers.get('location')!);
      expect(back.origin + back.pathname).toBe(POST_LOGOUT_REDIRECT_URI);
      expect(Object.fromEntries(back.searchParams)).toEqual({ state });

      // The OP calls the backchannel_logout_uri (the worker's round, within a second under npm start).
      const before = rp.received.length;
      await runBackchannelLogoutsOnce(op.server.h.runtime.deps);
      const calls = rp.received.slice(before).filter((r) => r.path === path);
      expect(calls).toHaveLength(1);
      await expectLogout(calls[0]!, client, first.idToken);

      // The prompt=none authorization that follows must fail: the user was logged out.
      const again = authorizationRequest(op, { prompt: 'none' }, client);
      expectCallbackError(op, await b.authorize(again.url), again.params.state, ['login_required', 'interaction_required']);
    });
  }
});
