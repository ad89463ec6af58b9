import * as client from 'openid-client';
import { chromium, type Browser as Chromium, type BrowserContext, type Page, type Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromiumBinary } from '../testing/clerk-browser';
import { TestClock } from '../testing/harness';
import { PASSWORD, startOp, type Op } from '../testing/oidc-conformance';
import { startWebhookReceiver, type WebhookReceiver } from '../testing/webhook-receiver';
import { required } from '../testing/requirements';

/**
 * prompt=login and max_age in Chromium: a browser that holds a session (its own `__client`
 * cookie, signed in through the FAPI as the hosted sign-in page does) follows an authorization
 * request that demands a fresh authentication. The provider sends it to the hosted sign-in with
 * `prompt=login` (what the page reads to show the form instead of "Continue as"), the way back
 * with the old session is refused, and only a new password sign-in from the page gets a code,
 * whose ID token's auth_time is the new sign-in's. The hosted page itself is the Next.js app's
 * (not served by the API under test): the test plays its form's request from its origin.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'prompt=login and max_age in Chromium');

let op: Op;
let chrome: Chromium;
/** The relying party's callback: a loopback server, so that every navigation ends on a real page. */
let rp: WebhookReceiver;
let REDIRECT_URI: string;
let app: { client_id: string; client_secret: string };
beforeAll(async () => {
  if (!hasChromium) return;
  op = await startOp({ clock: TestClock.running() });
  rp = await startWebhookReceiver();
  REDIRECT_URI = `${rp.url}/callback`;
  const res = await fetch(`${op.server.apiUrl}/v1/oauth_applications`, {
    method: 'POST',
    headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Chromium RP', redirect_uris: [REDIRECT_URI], scopes: ['openid'], consent_screen_enabled: false }),
  });
  app = (await res.json()) as typeof app;
  chrome = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}, 120_000);
afterAll(async () => {
  await rp?.close();
  await chrome?.close();
  await op?.close();
});

let visitor = 7000;
const seconds = () => Math.floor(op.server.h.clock.now() / 1000);

/** The hosted sign-in form's request, sent by the page from the instance's origin with the browser's cookies. */
async function signInFromPage(page: Page) {
  const status = await page.evaluate(
    async ({ fapi, email, password, pk }) => {
      const res = await fetch(`${fapi}/v1/client/sign_ins`, {
        method: 'POST',
        credentials: 'include',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-publishable-key': pk },
        body: new URLSearchParams({ identifier: email, strategy: 'password', password }).toString(),
      });
      return JSON.stringify(await res.json());
    },
    { fapi: op.issuer, email: op.user.email, password: PASSWORD, pk: op.instance.publishableKey },
  );
  expect((JSON.parse(status) as { response?: { status: string } }).response?.status, status).toBe('complete');
}

interface Visit {
  signIn: URL | null;
  callback: URL | null;
}

/** The hosted sign-in, opened directly, is a blank page the test serves on the instance's origin. */
async function blankPages(context: BrowserContext) {
  await context.route(
    (url) => url.href.startsWith(`${op.issuer}/sign-in?`),
    (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>page</title>' }),
  );
}

/** Navigates, following the provider's redirects, and reports where the browser ended: the hosted sign-in, or the RP's callback. */
async function navigate(page: Page, url: string): Promise<Visit> {
  const hops: string[] = [];
  const onRequest = (r: Request) => {
    if (r.isNavigationRequest() && r.frame() === page.mainFrame()) hops.push(r.url());
  };
  page.on('request', onRequest);
  // A redirect's target is not routed: the hosted sign-in answers 404 here (the Next.js app serves it); where it went is what counts.
  await page.goto(url);
  page.off('request', onRequest);
  const last = hops.at(-1) ?? '';
  return {
    signIn: last.startsWith(`${op.issuer}/sign-in?`) ? new URL(last) : null,
    callback: last.startsWith(REDIRECT_URI) ? new URL(last) : null,
  };
}

describe.skipIf(!hasChromium)('fresh authentication in Chromium (prompt=login, max_age)', () => {
  for (const ask of ['prompt=login', 'max_age=1'] as const) {
    it(`${ask}: the hosted sign-in is asked for a fresh sign-in, the old session gets no code, the new ID token's auth_time is fresh`, async () => {
      const config = await client.discovery(new URL(op.issuer), app.client_id, app.client_secret, undefined, {
        execute: [client.allowInsecureRequests],
      });
      // Its own visitor address (startOp maps the tag to one), as each real browser has: the sign-in limits are per IP.
      const context = await chrome.newContext({ userAgent: `Mozilla/5.0 Chromium ConformanceVisitor/${++visitor}` });
      await blankPages(context);
      const page = await context.newPage();
      // The user signs in once on the hosted sign-in (its request, from the instance's origin): the browser holds a session.
      await page.goto(`${op.issuer}/sign-in?redirect_url=${encodeURIComponent(op.issuer)}`);
      await signInFromPage(page);
      const firstSignIn = seconds();

      // A first authorization goes through with that session.
      const first = await navigate(page, authorizeUrl(config, {}).href);
      expect(first.signIn).toBeNull();
      expect(first.callback?.searchParams.get('code')).toBeTruthy();

      op.server.h.clock.advance(2_000);
      const verifier = client.randomPKCECodeVerifier();
      const params = {
        ...(ask === 'prompt=login' ? { prompt: 'login' } : { max_age: '1' }),
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state: client.randomState(),
        nonce: client.randomNonce(),
      };
      const asked = await navigate(page, authorizeUrl(config, params).href);
      // No code for the session the browser has: the hosted sign-in, told to ask for the password again.
      expect(asked.callback).toBeNull();
      expect(asked.signIn).not.toBeNull();
      expect(asked.signIn).not.toBeNull();
      expect(asked.signIn!.searchParams.get('prompt')).toBe('login');
      const back = asked.signIn!.searchParams.get('redirect_url')!;

      // Coming back with the old session ("Continue as …") is refused: login_required at the RP.
      const stale = await navigate(page, back);
      expect(stale.callback?.searchParams.get('error')).toBe('login_required');

      // A real new sign-in on the page, then the way back: a code, and the ID token's auth_time is the new one.
      await page.goto(`${asked.signIn!.href}&step=form`);
      await signInFromPage(page);
      const fresh = seconds();
      const done = await navigate(page, back);
      expect(done.callback?.searchParams.get('code')).toBeTruthy();
      const tokens = await client.authorizationCodeGrant(config, done.callback!, {
        pkceCodeVerifier: verifier,
        expectedState: params.state,
        expectedNonce: params.nonce,
        maxAge: ask === 'max_age=1' ? 1 : undefined,
      });
      const authTime = tokens.claims()!.auth_time!;
      expect(authTime).toBeGreaterThanOrEqual(fresh - 1);
      expect(authTime).toBeGreaterThan(firstSignIn);
      await context.close();
    }, 60_000);
  }
});

function authorizeUrl(config: client.Configuration, extra: Record<string, string>) {
  return client.buildAuthorizationUrl(config, { redirect_uri: REDIRECT_URI, scope: 'openid', ...extra });
}
