import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_SIGN_IN_METHODS } from '../../../instances/password-rules';
import { createTestUser, setSettings } from '../../../testing/fapi-helpers';
import { required } from '../../../testing/requirements';
import {
  apiError,
  CHROMIUM,
  clerkState,
  hasChromiumBinary,
  inPage,
  loadClerk,
  signedInClerkUser,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * Email links through `@clerk/clerk-js` 6.x (its browser bundle from npm, unchanged, in
 * Chromium): `signIn.createEmailLinkFlow()`, `signUp.createEmailLinkFlow()` and an added address's
 * `createEmailLinkFlow()` started in one browser, the emailed link opened in another, as a user
 * opens it from their mail app. The link completes the sign-in or sign-up of the browser that
 * asked (its polling sees it and `setActive` signs it in), or verifies the address; the browser
 * that opened it lands on the app's page with Clerk's `__clerk_status` and gets no session.
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
      (window as unknown as { __linkFlow: Promise<unknown> }).__linkFlow = startEmailLinkFlow({
        emailAddressId: factor!.emailAddressId,
        redirectUrl,
      }).then((done: { status: string; createdSessionId: string; firstFactorVerification: { status: string } }) => ({
        status: done.status,
        verification: done.firstFactorVerification.status,
        createdSessionId: done.createdSessionId,
      }));
      return factor!.emailAddressId;
    },
    { identifier, redirectUrl },
  );

/** Starts clerk-js's email link sign-up in the page; its polling runs on (window.__linkFlow). */
const startLinkSignUp = (page: Page, emailAddress: string, redirectUrl: string) =>
  inPage(
    page,
    async (clerk, { emailAddress, redirectUrl }) => {
      const su = await clerk.client.signUp.create({ emailAddress, password: 'a-long-Passphrase-for-links-42' });
      const { startEmailLinkFlow, cancelEmailLinkFlow } = su.createEmailLinkFlow();
      (window as unknown as { __cancelLinkFlow: () => void }).__cancelLinkFlow = cancelEmailLinkFlow;
      (window as unknown as { __linkFlow: Promise<unknown> }).__linkFlow = startEmailLinkFlow({ redirectUrl }).then(
        (done: {
          status: string;
          createdSessionId: string | null;
          verifications: { emailAddress: { status: string; strategy: string } };
        }) => ({
          status: done.status,
          verification: done.verifications.emailAddress.status,
          strategy: done.verifications.emailAddress.strategy,
          createdSessionId: done.createdSessionId,
        }),
      );
      return su.id as string;
    },
    { emailAddress, redirectUrl },
  );

/** The outcome of the page's email link flow, without acting on it. */
const linkFlowOutcome = (page: Page) =>
  inPage(page, async () => (window as unknown as { __linkFlow: Promise<Record<string, unknown>> }).__linkFlow, null);

/** What clerk.handleEmailLinkVerification does on the page a link landed on: another device's verification, or Clerk's EmailLinkError code. */
const handleLanding = (page: Page) =>
  inPage(
    page,
    async (clerk) => {
      await clerk.load({ telemetry: false });
      let otherDevice = false;
      try {
        await clerk.handleEmailLinkVerification({ onVerifiedOnOtherDevice: () => (otherDevice = true) });
      } catch (e) {
        return { error: (e as { code?: string }).code ?? String(e) };
      }
      return { otherDevice };
    },
    null,
  );

/** Waits for the page's email link flow, then makes its session active. */
const finishLinkSignIn = (page: Page) =>
  inPage(
    page,
    async (clerk) => {
      const done = (await (window as unknown as { __linkFlow: Promise<{ status: string; verification: string; createdSessionId: string }> })
        .__linkFlow)!;
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
    expect(await finishLinkSignIn(asker.page)).toEqual({
      status: 'complete',
      verification: 'verified',
      createdSessionId: sessionId,
      userId,
    });
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
        await si.prepareFirstFactor({
          strategy: 'email_link',
          emailAddressId: factor.emailAddressId,
          redirectUrl: 'https://evil.example.net/catch',
        });
      },
      address,
    );
    expect(refused).toMatchObject({ status: 422, params: ['redirect_url'] });
    expect(await x.h.outbox(address)).toEqual([]);
    await context.close();
  }, 60_000);
});

describe.skipIf(!hasChromium)('sign-up and address verification by email link through clerk-js', () => {
  it('signUp.createEmailLinkFlow: the link opened in another browser signs up the browser that asked, never the opener; a tampered link fails, a used one is expired', async () => {
    const address = email('signup');
    const asker = await x.openApp();
    const redirectUrl = `${x.appOrigin}/sign-up/verified`;
    const signUpId = await startLinkSignUp(asker.page, address, redirectUrl);

    const link = await emailedLink(address);
    expect((await x.h.outbox(address))[0]).toMatchObject({
      template: 'verification_link',
      subject: expect.stringContaining('Verify your email address'),
    });
    expect(new URL(link).pathname).toBe(`/fapi/${x.inst.instanceId}/v1/verify`);
    expect(new URL(link).searchParams.get('token')).toMatch(new RegExp(`^${signUpId}\\.`));

    // A link whose secret was changed fails and is not spent.
    const tampered = new URL(link);
    tampered.searchParams.set('token', `${tampered.searchParams.get('token')!.slice(0, -4)}AAAA`);
    const forged = await openElsewhere(tampered.href);
    expect(forged.landed.searchParams.get('__clerk_status')).toBe('failed');

    const opener = await openElsewhere(link);
    expect(`${opener.landed.origin}${opener.landed.pathname}`).toBe(redirectUrl);
    expect(opener.landed.searchParams.get('__clerk_status')).toBe('verified');
    const sessionId = opener.landed.searchParams.get('__clerk_created_session');
    expect(sessionId).toMatch(/^sess_/);

    // The asking browser's polling sees the sign-up complete; its new session is the one the link named.
    const done = await finishLinkSignIn(asker.page);
    expect(done).toMatchObject({ status: 'complete', verification: 'verified', strategy: 'email_link', createdSessionId: sessionId });
    expect(await clerkState(asker.page)).toMatchObject({ userId: done.userId, email: address, sessionId });
    const user = await x.h.call('GET', `/v1/users/${done.userId}`, { key: x.inst.secret });
    expect(user.body.email_addresses).toMatchObject([
      { email_address: address, verification: { status: 'verified', strategy: 'email_link' } },
    ]);

    // The opener has no session: clerk-js there says the link was verified on another device.
    expect(await handleLanding(opener.page)).toEqual({ otherDevice: true });
    expect(await clerkState(opener.page)).toMatchObject({ userId: null, sessions: [] });

    // Used once: opened again, it is expired and signs nobody in.
    const again = await openElsewhere(link);
    expect(again.landed.searchParams.get('__clerk_status')).toBe('expired');
    expect(again.landed.searchParams.get('__clerk_created_session')).toBeNull();
    expect(await handleLanding(again.page)).toEqual({ error: 'expired' });
    for (const c of [asker.context, forged.context, opener.context, again.context]) await c.close();
  }, 120_000);

  it('with email_link_same_browser a sign-up link opened elsewhere is client_mismatch and stays unused; opened in the asking browser, handleEmailLinkVerification signs that tab in', async () => {
    await setSettings(x.h, x.inst.instanceId, { sign_in_methods: { ...LINKS_ON, email_link_same_browser: true } });
    try {
      const address = email('signup-same');
      const asker = await x.openApp();
      await startLinkSignUp(asker.page, address, `${x.appOrigin}/verified`);
      const link = await emailedLink(address);

      const elsewhere = await openElsewhere(link);
      expect(elsewhere.landed.searchParams.get('__clerk_status')).toBe('client_mismatch');
      expect(await handleLanding(elsewhere.page)).toEqual({ error: 'client_mismatch' });
      expect(await clerkState(elsewhere.page)).toMatchObject({ userId: null, sessions: [] });

      // The first tab stops polling (the sign-up rotates the client's token), then the asking browser opens the link.
      await inPage(asker.page, async () => (window as unknown as { __cancelLinkFlow: () => void }).__cancelLinkFlow(), null);
      await asker.page.waitForLoadState('networkidle');
      const tab = await asker.context.newPage();
      await tab.goto(link);
      const landed = new URL(tab.url());
      expect(landed.searchParams.get('__clerk_status')).toBe('verified');
      await loadClerk(tab);
      await inPage(tab, async (clerk) => clerk.handleEmailLinkVerification({}), null);
      expect(await clerkState(tab)).toMatchObject({ email: address, sessionId: landed.searchParams.get('__clerk_created_session') });
      for (const c of [asker.context, elsewhere.context]) await c.close();
    } finally {
      await setSettings(x.h, x.inst.instanceId, { sign_in_methods: LINKS_ON });
    }
  }, 120_000);

  it('emailAddress.createEmailLinkFlow: a second address is verified by its link, opened anywhere, and nobody is signed in by it', async () => {
    const first = email('owner');
    const second = email('second');
    const owner = await signedInClerkUser(x, first, 'a-long-Passphrase-for-links-42');
    const redirectUrl = `${x.appOrigin}/profile/verified`;
    const addressId = await inPage(
      owner.page,
      async (clerk, { second, redirectUrl }) => {
        const added = await clerk.user.createEmailAddress({ email: second });
        const { startEmailLinkFlow } = added.createEmailLinkFlow();
        (window as unknown as { __linkFlow: Promise<unknown> }).__linkFlow = startEmailLinkFlow({ redirectUrl }).then(
          (done: { id: string; verification: { status: string; strategy: string } }) => ({
            id: done.id,
            status: done.verification.status,
            strategy: done.verification.strategy,
          }),
        );
        return added.id as string;
      },
      { second, redirectUrl },
    );
    const link = await emailedLink(second);
    expect((await x.h.outbox(second))[0]).toMatchObject({ template: 'verification_link' });

    const opener = await openElsewhere(link);
    expect(`${opener.landed.origin}${opener.landed.pathname}`).toBe(redirectUrl);
    expect(opener.landed.searchParams.get('__clerk_status')).toBe('verified');
    expect(opener.landed.searchParams.get('__clerk_created_session')).toBeNull();
    expect(await linkFlowOutcome(owner.page)).toEqual({ id: addressId, status: 'verified', strategy: 'email_link' });
    const addresses = await inPage(
      owner.page,
      async (clerk) => {
        await clerk.user.reload();
        return clerk.user.emailAddresses.map((e: { emailAddress: string; verification: { status: string } }) => [
          e.emailAddress,
          e.verification.status,
        ]);
      },
      null,
    );
    expect(addresses).toEqual(expect.arrayContaining([[second, 'verified']]));
    expect(await handleLanding(opener.page)).toEqual({ otherDevice: true });
    expect(await clerkState(opener.page)).toMatchObject({ userId: null, sessions: [] });
    const again = await openElsewhere(link);
    expect(again.landed.searchParams.get('__clerk_status')).toBe('expired');
    for (const c of [owner.context, opener.context, again.context]) await c.close();
  }, 120_000);

  it('with email_link_same_browser an address link opened in a browser not signed in to the account is client_mismatch and verifies nothing', async () => {
    await setSettings(x.h, x.inst.instanceId, { sign_in_methods: { ...LINKS_ON, email_link_same_browser: true } });
    try {
      const owner = await signedInClerkUser(x, email('owner2'), 'a-long-Passphrase-for-links-42');
      const second = email('second2');
      await inPage(
        owner.page,
        async (clerk, { second, redirectUrl }) => {
          const added = await clerk.user.createEmailAddress({ email: second });
          const { startEmailLinkFlow } = added.createEmailLinkFlow();
          (window as unknown as { __linkFlow: Promise<unknown> }).__linkFlow = startEmailLinkFlow({ redirectUrl }).then(
            (done: { verification: { status: string } }) => done.verification.status,
          );
        },
        { second, redirectUrl: `${x.appOrigin}/verified` },
      );
      const link = await emailedLink(second);
      const elsewhere = await openElsewhere(link);
      expect(elsewhere.landed.searchParams.get('__clerk_status')).toBe('client_mismatch');
      const user = await x.h.call('GET', `/v1/users/${owner.userId}`, { key: x.inst.secret });
      expect(user.body.email_addresses.find((e: { email_address: string }) => e.email_address === second).verification.status).toBe(
        'unverified',
      );

      const tab = await owner.context.newPage();
      await tab.goto(link);
      expect(new URL(tab.url()).searchParams.get('__clerk_status')).toBe('verified');
      expect(await linkFlowOutcome(owner.page)).toBe('verified');
      for (const c of [owner.context, elsewhere.context]) await c.close();
    } finally {
      await setSettings(x.h, x.inst.instanceId, { sign_in_methods: LINKS_ON });
    }
  }, 120_000);

  it('a sign-up link past its 10 minutes is expired, for the asking browser and the opener; links need the instance to send them', async () => {
    const off = await x.openApp();
    await setSettings(x.h, x.inst.instanceId, { sign_in_methods: DEFAULT_SIGN_IN_METHODS });
    try {
      const refused = await apiError(
        off.page,
        async (clerk, emailAddress: string) => {
          const su = await clerk.client.signUp.create({ emailAddress, password: 'a-long-Passphrase-for-links-42' });
          await su.prepareEmailAddressVerification({ strategy: 'email_link', redirectUrl: `${location.origin}/verified` });
        },
        email('off'),
      );
      expect(refused).toMatchObject({ status: 422, params: ['strategy'] });
    } finally {
      await setSettings(x.h, x.inst.instanceId, { sign_in_methods: LINKS_ON });
    }

    const address = email('late');
    const asker = await x.openApp();
    await startLinkSignUp(asker.page, address, `${x.appOrigin}/verified`);
    const link = await emailedLink(address);
    x.h.clock.advance(11 * 60_000);
    // clerk-js's polling ends on Clerk's `expired`, with no session.
    expect(await linkFlowOutcome(asker.page)).toMatchObject({
      status: 'missing_requirements',
      verification: 'expired',
      createdSessionId: null,
    });
    const opener = await openElsewhere(link);
    expect(opener.landed.searchParams.get('__clerk_status')).toBe('expired');
    expect(await handleLanding(opener.page)).toEqual({ error: 'expired' });
    for (const c of [off.context, asker.context, opener.context]) await c.close();
  }, 120_000);
});
