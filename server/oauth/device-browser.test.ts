import * as client from 'openid-client';
import { chromium, type Browser as Chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasChromiumBinary } from '../testing/clerk-browser';
import { TestClock } from '../testing/harness';
import { Browser, startOp, type Op } from '../testing/oidc-conformance';
import { required } from '../testing/requirements';

/**
 * The device flow's verification page in Chromium: a signed-in user types the code the
 * device shows, sees the app and its scopes, allows; the device (openid-client) gets tokens.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the device verification page in Chromium');

let op: Op;
let chrome: Chromium;
beforeAll(async () => {
  if (!hasChromium) return;
  op = await startOp({ clock: TestClock.running(), env: { OAUTH_DEVICE_POLL_INTERVAL: '1' } });
  chrome = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
}, 120_000);
afterAll(async () => {
  await chrome?.close();
  await op?.close();
});

describe.skipIf(!hasChromium)('device verification page in Chromium', () => {
  it('the user types the code, sees the app and scopes, allows; the device is signed in', async () => {
    const res = await fetch(`${op.server.apiUrl}/v1/oauth_applications`, {
      method: 'POST',
      headers: { authorization: `Bearer ${op.instance.secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Acme TV', public: true, scopes: ['openid', 'email'], device_flow_enabled: true }),
    });
    const app = (await res.json()) as { client_id: string };
    const config = await client.discovery(new URL(op.issuer), app.client_id, undefined, client.None(), {
      execute: [client.allowInsecureRequests],
    });
    const started = await client.initiateDeviceAuthorization(config, { scope: 'openid email' });
    const polling = client.pollDeviceAuthorizationGrant(config, started);

    // The user's session, signed in through the FAPI as the hosted sign-in does, in the browser's cookie jar.
    const signedIn = new Browser(op);
    await signedIn.signIn();
    const context = await chrome.newContext();
    await context.addCookies(
      signedIn.cookie.split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), url: op.server.apiUrl };
      }),
    );
    const page = await context.newPage();
    await page.goto(started.verification_uri);
    await page.getByLabel('Code').fill(started.user_code.replace('-', ' ').toLowerCase());
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.getByRole('heading', { name: 'Connect Acme TV?' }).isVisible()).resolves.toBe(true);
    expect(await page.getByRole('listitem').allTextContents()).toEqual(['Know who you are', 'See your email address']);
    expect(await page.textContent('main')).toContain(`your device shows the code ${started.user_code}`);
    await page.getByRole('button', { name: 'Allow' }).click();
    await expect(page.getByRole('status').textContent()).resolves.toBe('Done: you can return to your device.');
    await context.close();

    const tokens = await polling;
    expect(tokens.claims()!.sub).toBe(op.user.id);
    expect(tokens.claims()!.email).toBe(op.user.email);
  }, 60_000);
});
