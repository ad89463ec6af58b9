import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_METHODS } from '../../../instances/password-rules';
import { createTestUser, setSettings } from '../../../testing/fapi-helpers';
import { required } from '../../../testing/requirements';
import { apiError, CHROMIUM, clerkState, hasChromiumBinary, inPage, loadClerk, startClerkBrowserHarness, type ClerkBrowserHarness } from '../../../testing/clerk-browser';

/**
 * Email links through `@clerk/clerk-js` 6.x (its browser bundle from npm, unchanged, in
 * Chromium): `signIn.createEmailLinkFlow()` started in one browser, the emailed link opened in
 * another, as a user opens it from their mail app. The link completes the sign-in of the
 * browser that asked (its polling sees it and `setActive` signs it in); the browser that opened
 * it lands on the app's page with Clerk's `__clerk_status` and gets no session.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

const LINKS_ON = { ...DEFAULT_SIGN_IN_METHODS, email_link: true };
let x: ClerkBrowserHarness;
beforeAll(async () => {
  if (hasChromium) x = await startClerkBrowserHarness({ settings: { name_required: false, sign_in_methods: LINKS_ON } });
}, 120_000);
afterAll(async () => {
  await x?.close();
});

let seq = 0;
const email = (tag: string) => `clerkjs-${tag}-${++seq}-${Date.now()}@example.com`;

/** The link of the newest email to an address, once it is written. */
async function emailedLink(address: string, count = 1): Promise<string> {
  await expect.poll(async () => (await x.h.outbox(address)).length, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  const url = (await x.h.outbox(address))[0]!.data.url;
  if (typeof url !== 'string') throw new Error(`No link was sent to ${address}`);
  return url;
}

/** Starts clerk-js's email link sign-in in the page; its polling runs on (window.__linkFlow). */
const startLinkSignIn = (page: Page, identifier: string, redirectUrl: string) =>
  inPage(
    page,
    async (clerk, { identifier, redirectUrl }) => {
      const si = await clerk.client.signIn.create({ identifier });
      const factor = (si.supportedFirstFactors as { strategy: string; emailAddressId: string }[]).find((f) => f.strategy === 'email_link');
      const { startEmailLinkFlow, cancelEmailLinkFlow } = si.createEmailLinkFlow();
      (window as unknown as { __cancelLinkFlow: () => void }).__cancelLinkFlow = cancelEmailLinkFlow;
      (window as unknown as { __linkFlow: Promise<unknown> }).__linkFlow = startEmailLinkFlow({ emailAddressId: factor!.emailAddressId, redirectUrl }).then(
        (done: { status: string; createdSessionId: string; firstFactorVerification: { status: string } }) => ({
          status: done.status,
          verification: done.firstFactorVerification.status,
          createdSessionId: done.createdSessionId,
        }),
      );
      return factor!.emailAddressId;
    },
    { identifier, redirectUrl },
  );

/** Waits for the page's email link flow, then makes its session active. */
const finishLinkSignIn = (page: Page) =>
  inPage(
    page,
    async (clerk) => {
      const done = (await (window as unknown as { __linkFlow: Promise<{ status: string; verification: string; createdSessionId: string }> }).__linkFlow)!;
      await clerk.setActive({ session: done.createdSessionId });
      return { ...done, userId: clerk.user?.id as string };
    },
    null,
  );

/** Opens a link in a browser of its own (another device's mail app): where it lands, and Clerk's parameters there. */
async function openElsewhere(link: string): Promise<{ context: BrowserContext; page: Page; landed: URL }> {
  const { context, page } = await x.openApp({ load: false });
  await page.goto(link);
  return { context, page, landed: new URL(page.url()) };
}

describe.skipIf(!hasChromium)('email links through clerk-js', () => {
  it('signIn.createEmailLinkFlow: the link opened in another browser signs in the browser that asked; the opener lands on the app signed out; the link works once', async () => {
    const address = email('link');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address] });
    const asker = await x.openApp();
    const redirectUrl = `${x.appOrigin}/verified`;
    expect(await startLinkSignIn(asker.page, address, redirectUrl)).toBeTruthy();

    const link = await emailedLink(address);
    expect(new URL(link).pathname).toBe(`/fapi/${x.inst.instanceId}/v1/verify`);
    const opener = await openElsewhere(link);
    expect(`${opener.landed.origin}${opener.landed.pathname}`).toBe(redirectUrl);
    expect(opener.landed.searchParams.get('__clerk_status')).toBe('verified');
    const sessionId = opener.landed.searchParams.get('__clerk_created_session');
    expect(sessionId).toMatch(/^sess_/);

    // The asking browser's polling sees the verification; its session is the one the link named.
    expect(await finishLinkSignIn(asker.page)).toEqual({ status: 'complete', verification: 'verified', createdSessionId: sessionId, userId });
    expect(await clerkState(asker.page)).toMatchObject({ userId, sessionId });

    // The opener got no session: clerk-js there tells the link was verified on another device.
    await inPage(opener.page, async (clerk) => clerk.load({ telemetry: false }), null);
    expect(await clerkState(opener.page)).toMatchObject({ userId: null, sessions: [] });
    const there = await inPage(
      opener.page,
      async (clerk) => {
        let otherDevice = false;
        await clerk.handleEmailLinkVerification({ onVerifiedOnOtherDevice: () => (otherDevice = true) });
        return otherDevice;
      },
      null,
    );
    expect(there).toBe(true);

    // Used once: opened again, it signs nobody in.
    const again = await openElsewhere(link);
    expect(again.landed.searchParams.get('__clerk_status')).toBe('expired');
    expect(again.landed.searchParams.get('__clerk_created_session')).toBeNull();
    for (const c of [asker.context, opener.context, again.context]) await c.close();
  }, 90_000);

  it('with email_link_same_browser another browser is client_mismatch and the link stays unused; opened in the asking browser, handleEmailLinkVerification signs that tab in', async () => {
    await setSettings(x.h, x.inst.instanceId, { sign_in_methods: { ...LINKS_ON, email_link_same_browser: true } });
    try {
      const address = email('same');
      const userId = await createTestUser(x.h, x.inst, { email_address: [address] });
      const asker = await x.openApp();
      await startLinkSignIn(asker.page, address, `${x.appOrigin}/verified`);
      const link = await emailedLink(address);

      const elsewhere = await openElsewhere(link);
      expect(elsewhere.landed.searchParams.get('__clerk_status')).toBe('client_mismatch');
      expect(elsewhere.landed.searchParams.get('__clerk_created_session')).toBeNull();

      // The asking browser opens it in a new tab: that tab lands verified and, the session being its
      // client's, Clerk's handleEmailLinkVerification makes it active there. The sign-in rotates the
      // client's token, so the first tab stops polling first: a poll in flight with the old token
      // would be answered as a client gone.
      await inPage(asker.page, async () => (window as unknown as { __cancelLinkFlow: () => void }).__cancelLinkFlow(), null);
      await asker.page.waitForLoadState('networkidle');
      const tab = await asker.context.newPage();
      await tab.goto(link);
      const landed = new URL(tab.url());
      expect(landed.searchParams.get('__clerk_status')).toBe('verified');
      await loadClerk(tab);
      await inPage(tab, async (clerk) => clerk.handleEmailLinkVerification({}), null);
      expect(await clerkState(tab)).toMatchObject({ userId, sessionId: landed.searchParams.get('__clerk_created_session') });
      for (const c of [asker.context, elsewhere.context]) await c.close();
    } finally {
      await setSettings(x.h, x.inst.instanceId, { sign_in_methods: LINKS_ON });
    }
  }, 90_000);

  it('a redirectUrl that is no page of the app is refused, and no email is sent', async () => {
    const address = email('evil');
    await createTestUser(x.h, x.inst, { email_address: [address] });
    const { context, page } = await x.openApp();
    const refused = await apiError(
      page,
      async (clerk, identifier: string) => {
        const si = await clerk.client.signIn.create({ identifier });
        const factor = si.supportedFirstFactors.find((f: { strategy: string }) => f.strategy === 'email_link');
        await si.prepareFirstFactor({ strategy: 'email_link', emailAddressId: factor.emailAddressId, redirectUrl: 'https://evil.example.net/catch' });
      },
      address,
    );
    expect(refused).toMatchObject({ status: 422, params: ['redirect_url'] });
    expect(await x.h.outbox(address)).toEqual([]);
    await context.close();
  }, 60_000);
});
