import * as client from 'openid-client';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JWTPayload } from 'jose';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { oauthLogoutDeliveries } from '../db/schema';
import { createHarness, type TestHarness } from '../testing/harness';
import { browserOf, instanceWith, signUp, type TestInstance } from '../testing/auth-flows';
import { signedInClient } from '../testing/fapi-helpers';
import type { FapiTestClient } from '../testing/fapi-client';
import { answer, startWebhookReceiver, type ReceivedWebhook, type WebhookReceiver } from '../testing/webhook-receiver';
import { browserGet, browserPost, consentForm, createOAuthApp, fapiUrlOf, relyingParty, startCodeFlow } from '../testing/oidc';
import { runBackchannelLogoutsOnce } from './backchannel-logout';
import { RETRY_SCHEDULE_MS } from '../webhooks/policy';
import { startWebhookWorker } from '../webhooks/worker';
import { deliveryRounds } from '../main/delivery-rounds';
import type { ServerResponse } from 'node:http';

/**
 * OpenID Back-Channel Logout 1.0 end to end: relying parties (openid-client) sign in through the
 * provider; when the session ends — sign-out, revocation, ban, RP-initiated logout — a loopback RP
 * receives the logout_token and validates it as §2.6 says, with jose against the provider's JWKS.
 */

let h: TestHarness;
let inst: TestInstance;
let rp: WebhookReceiver;
let userId: string;
let browser: FapiTestClient;

beforeAll(async () => {
  h = await createHarness({ env: { ALLOW_PRIVATE_TARGETS: '1' } });
  inst = await instanceWith(h);
  rp = await startWebhookReceiver();
  browser = browserOf(h, inst);
  ({ userId } = await signUp(h, browser, { email_address: 'bcl@example.com', password: 'correct horse battery staple' }));
});
afterAll(async () => {
  await rp.close();
  await h.close();
});

const work = () => runBackchannelLogoutsOnce(h.runtime.deps);

/** An app whose back-channel logout goes to the loopback RP (`path` tells the apps apart). */
async function logoutApp(path: string, extra: Record<string, unknown> = {}) {
  return createOAuthApp(h, inst, { backchannel_logout_uri: `${rp.url}${path}`, consent_screen_enabled: false, ...extra });
}

/** The browser signs into the app (code flow with PKCE through openid-client); answers the ID token's claims. */
async function signInto(b: FapiTestClient, app: Awaited<ReturnType<typeof logoutApp>>) {
  const config = await relyingParty(h, inst, app);
  const flow = await startCodeFlow(config, { scope: 'openid' });
  let res = await browserGet(h, b, flow.url);
  if (res.status === 200) {
    const form = consentForm(await res.text());
    res = await browserPost(h, b, `/fapi/${inst.instanceId}/oauth2/consent`, { ...form, decision: 'allow' });
  }
  const tokens = await client.authorizationCodeGrant(config, new URL(res.headers.get('location')!), {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
    expectedNonce: flow.nonce,
  });
  return { claims: tokens.claims()!, idToken: tokens.id_token! };
}

/** What an RP does with a logout request (§2.6): the token from the form body, validated against the OP's JWKS. */
async function validateLogoutRequest(req: ReceivedWebhook, clientId: string): Promise<JWTPayload> {
  expect(req.headers['content-type']).toBe('application/x-www-form-urlencoded');
  const form = new URLSearchParams(req.body);
  expect([...form.keys()]).toEqual(['logout_token']);
  const token = form.get('logout_token')!;
  const jwks = await h.call('GET', `/fapi/${inst.instanceId}/.well-known/jwks.json`);
  const { payload, protectedHeader } = await jwtVerify(token, createLocalJWKSet(jwks.body), {
    issuer: fapiUrlOf(inst),
    audience: clientId,
    algorithms: ['RS256'],
    typ: 'logout+jwt',
    requiredClaims: ['iat', 'jti'],
    currentDate: new Date(h.clock.now()),
  });
  expect(protectedHeader.typ).toBe('logout+jwt');
  expect(payload.events).toEqual({ 'http://schemas.openid.net/event/backchannel-logout': {} });
  expect(payload.sub ?? payload.sid).toBeDefined();
  expect(payload).not.toHaveProperty('nonce');
  return payload;
}

const deliveriesOf = (appId: string) =>
  h.runtime.deps.db.select().from(oauthLogoutDeliveries).where(eq(oauthLogoutDeliveries.applicationId, appId));

describe('configuration', () => {
  it('discovery advertises back-channel logout with sid; the app keeps its URL and session_required', async () => {
    const meta = await h.call('GET', `/fapi/${inst.instanceId}/.well-known/openid-configuration`);
    expect(meta.body.backchannel_logout_supported).toBe(true);
    expect(meta.body.backchannel_logout_session_supported).toBe(true);
    const app = await logoutApp('/config', { backchannel_logout_session_required: true });
    expect(app.backchannel_logout_uri).toBe(`${rp.url}/config`);
    expect(app.backchannel_logout_session_required).toBe(true);
    const cleared = await h.call('PATCH', `/v1/oauth_applications/${app.client_id}`, {
      key: inst.secret,
      body: { backchannel_logout_uri: null },
    });
    expect(cleared.status).toBe(200);
    expect(cleared.body.backchannel_logout_uri).toBeNull();
  });

  it('refuses a URL with a fragment or one that is not a URL (422)', async () => {
    for (const bad of ['https://rp.example.com/logout#x', 'not a url']) {
      const res = await h.call('POST', '/v1/oauth_applications', {
        key: inst.secret,
        body: { name: 'Bad', redirect_uris: ['https://rp.example.com/callback'], backchannel_logout_uri: bad },
      });
      expect(res.status).toBe(422);
      expect(res.body.errors[0].meta.param_name ?? res.body.errors[0].meta.param).toBe('backchannel_logout_uri');
    }
  });
});

describe('delivery', () => {
  it('sign-out posts a logout_token to every app the session signed into, with its sid; apps without a URL hear nothing', async () => {
    const { b, sessionId } = await signedInClient(h, inst, userId);
    const first = await logoutApp('/first');
    const second = await logoutApp('/second');
    const silent = await createOAuthApp(h, inst, { consent_screen_enabled: false });
    const one = await signInto(b, first);
    await signInto(b, second);
    await signInto(b, silent);
    expect(one.claims.sid).toBe(sessionId);
    expect(await work()).toBe(0);

    rp.received.length = 0;
    expect((await b.call('DELETE', '/v1/client/sessions')).status).toBe(200);
    expect(await work()).toBe(2);
    const byPath = new Map(rp.received.map((r) => [r.path, r]));
    expect([...byPath.keys()].sort()).toEqual(['/first', '/second']);
    const token = await validateLogoutRequest(byPath.get('/first')!, first.client_id);
    expect(token.sid).toBe(one.claims.sid);
    expect(token.sub).toBe(userId);
    await validateLogoutRequest(byPath.get('/second')!, second.client_id);
    expect((await deliveriesOf(first.client_id)).map((d) => d.status)).toEqual(['succeeded']);
    expect(await deliveriesOf(silent.client_id)).toEqual([]);

    // Removing the ended session later is no second logout.
    await b.call('POST', `/v1/client/sessions/${sessionId}/remove`);
    expect(await work()).toBe(0);
  });

  it('an operator’s session revoke, a ban and RP-initiated logout each reach the RP', async () => {
    const app = await logoutApp('/ops');
    const ends: [string, (s: { b: FapiTestClient; sessionId: string }, idToken: string) => Promise<unknown>][] = [
      ['revoke', ({ sessionId }) => h.call('POST', `/v1/sessions/${sessionId}/revoke`, { key: inst.secret })],
      [
        'rp-initiated',
        ({ b }, idToken) => browserGet(h, b, `${fapiUrlOf(inst)}/oauth2/end_session?id_token_hint=${encodeURIComponent(idToken)}`),
      ],
    ];
    for (const [, end] of ends) {
      const s = await signedInClient(h, inst, userId);
      const { idToken } = await signInto(s.b, app);
      rp.received.length = 0;
      await end(s, idToken);
      expect(await work()).toBe(1);
      expect((await validateLogoutRequest(rp.received[0]!, app.client_id)).sid).toBe(s.sessionId);
    }

    const other = await signUp(h, browserOf(h, inst), { email_address: 'banned@example.com', password: 'correct horse battery staple' });
    const s = await signedInClient(h, inst, other.userId);
    await signInto(s.b, app);
    rp.received.length = 0;
    expect((await h.call('POST', `/v1/users/${other.userId}/ban`, { key: inst.secret })).status).toBe(200);
    expect(await work()).toBeGreaterThanOrEqual(1);
    const subs = await Promise.all(rp.received.map((r) => validateLogoutRequest(r, app.client_id)));
    expect(subs.map((t) => t.sid)).toContain(s.sessionId);
    expect(subs.every((t) => t.sub === other.userId)).toBe(true);
  });

  it('a worker stopped while an RP is still answering gives the logout’s lease back: another worker takes it at once', async () => {
    const app = await logoutApp('/slow');
    const s = await signedInClient(h, inst, userId);
    await signInto(s.b, app);
    let pending: ServerResponse | null = null;
    rp.reply = (_req, res) => (pending = res); // answers only when told
    const worker = await startWebhookWorker(h.runtime.deps, h.runtime.database, { rounds: deliveryRounds(h.runtime.deps), pollMs: 20 });
    const arrived = rp.next();
    await s.b.call('DELETE', '/v1/client/sessions');
    await arrived;
    let [d] = await deliveriesOf(app.client_id);
    expect(d).toMatchObject({ status: 'pending', attempts: 0 });
    expect(d!.lockedUntil).toBeGreaterThan(h.clock.now());
    await worker.stop(50);
    [d] = await deliveriesOf(app.client_id);
    expect(d).toMatchObject({ status: 'pending', lockedUntil: h.clock.now() });
    // The attempt still in flight here ends; its answer is recorded, and nothing is left running.
    rp.reply = answer(200);
    (pending as ServerResponse | null)?.writeHead(200).end();
    await expect.poll(async () => (await deliveriesOf(app.client_id))[0]!.status).toBe('succeeded');
  });

  it('an RP that fails is retried on the schedule until it answers 2xx', async () => {
    const app = await logoutApp('/flaky');
    const s = await signedInClient(h, inst, userId);
    await signInto(s.b, app);
    rp.reply = answer(503);
    rp.received.length = 0;
    await s.b.call('DELETE', '/v1/client/sessions');
    expect(await work()).toBe(1);
    let [d] = await deliveriesOf(app.client_id);
    expect(d).toMatchObject({ status: 'pending', attempts: 1, lastError: 'HTTP 503' });
    // The operator sees the delivery, its attempts and its last error (the console's application page reads this).
    const shown = () => h.call('GET', `/v1/oauth_applications/${app.client_id}/logout_deliveries`, { key: inst.secret });
    expect((await shown()).body.data).toEqual([
      expect.objectContaining({
        object: 'oauth_logout_delivery',
        status: 'pending',
        attempts: 1,
        last_error: 'HTTP 503',
        user_id: d!.userId,
      }),
    ]);
    expect(await work()).toBe(0);
    rp.reply = answer(200);
    h.clock.advance(RETRY_SCHEDULE_MS[0]!);
    expect(await work()).toBe(1);
    [d] = await deliveriesOf(app.client_id);
    expect(d).toMatchObject({ status: 'succeeded', attempts: 2 });
    expect((await shown()).body.data).toEqual([expect.objectContaining({ status: 'succeeded', attempts: 2, last_error: null })]);
    expect(rp.received).toHaveLength(2);
    // Both attempts carried a valid token; a new jti each time.
    const tokens = await Promise.all(rp.received.map((r) => validateLogoutRequest(r, app.client_id)));
    expect(tokens[0]!.jti).not.toBe(tokens[1]!.jti);
    expect(decodeProtectedHeader(new URLSearchParams(rp.received[1]!.body).get('logout_token')!).kid).toBeTruthy();
  });
});
