import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeSentTo } from '../testing/auth-flows';
import { createTestUser } from '../testing/fapi-helpers';
import { required } from '../testing/requirements';
import { CHROMIUM, hasChromiumBinary, startClerkBrowserHarness, type ClerkBrowserHarness } from './fapi/browser-harness';

/**
 * `@clerk/clerk-js` 6.x, its own browser bundle from npm, unchanged, in Chromium, against an
 * instance's FAPI (server/clerk/fapi): the instance's pk_test_ key and `proxyUrl` = its fapi_url.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

let x: ClerkBrowserHarness;
beforeAll(async () => {
  if (hasChromium) x = await startClerkBrowserHarness({ settings: { name_required: false } });
}, 120_000);
afterAll(async () => {
  await x?.close();
});

const PASSWORD = 'correct horse battery staple 42';
let seq = 0;
const email = (tag: string) => `clerkjs-${tag}-${++seq}-${Date.now()}@example.com`;

/** Runs `fn` in the page with `window.Clerk`; a thrown ClerkAPIResponseError comes back as `{error: {status, codes, params}}`. */
async function inPage<T, A>(page: Page, fn: (clerk: any, arg: A) => Promise<T>, arg: A): Promise<T> {
  const source = fn.toString();
  return page.evaluate(
    async ({ source, arg }) => {
      const f = new Function(`return (${source})`)() as (c: unknown, a: unknown) => Promise<unknown>;
      return f((window as unknown as { Clerk: unknown }).Clerk, arg);
    },
    { source, arg },
  ) as Promise<T>;
}

/** What a ClerkAPIResponseError carries, as Clerk's UI reads it. */
const apiError = async <A,>(page: Page, fn: (clerk: any, arg: A) => Promise<unknown>, arg: A) =>
  inPage(
    page,
    async (clerk, { source, arg }) => {
      try {
        await (new Function(`return (${source})`)() as (c: unknown, a: unknown) => Promise<unknown>)(clerk, arg);
        return null;
      } catch (e) {
        const err = e as { status?: number; errors?: { code: string; longMessage?: string; meta?: { paramName?: string } }[] };
        return { status: err.status, codes: err.errors?.map((x) => x.code), params: err.errors?.map((x) => x.meta?.paramName), long: err.errors?.[0]?.longMessage };
      }
    },
    { source: fn.toString(), arg },
  );

/** Waits for clerk-js on a (re)loaded page and loads it. */
async function loadClerk(page: Page) {
  await page.waitForFunction(() => 'Clerk' in window);
  await inPage(page, async (clerk) => clerk.load(), null);
}

const state = (page: Page) =>
  inPage(
    page,
    async (clerk) => ({
      loaded: clerk.loaded as boolean,
      userId: (clerk.user?.id as string | undefined) ?? null,
      email: (clerk.user?.primaryEmailAddress?.emailAddress as string | undefined) ?? null,
      sessionId: (clerk.session?.id as string | undefined) ?? null,
      sessions: (clerk.client?.sessions ?? []).map((s: { id: string }) => s.id) as string[],
    }),
    null,
  );

describe.skipIf(!hasChromium)('boot', () => {
  it('clerk.load() finishes: the environment from the instance, a signed-out client', async () => {
    const { context, page } = await x.openApp();
    const env = await inPage(
      page,
      async (clerk) => ({
        name: clerk.__internal_environment?.displayConfig?.applicationName,
        password: clerk.__internal_environment?.userSettings?.attributes?.password?.enabled,
        orgs: clerk.__internal_environment?.organizationSettings?.enabled,
        dev: clerk.__internal_environment?.isDevelopmentOrStaging?.(),
      }),
      null,
    );
    expect(env).toEqual({ name: 'Test', password: true, orgs: true, dev: true });
    expect(await state(page)).toMatchObject({ loaded: true, userId: null, sessionId: null });
    // What clerk-js sent: its _method override and its version parameters, no publishable key.
    const boot = x.calls.filter((c) => /\/v1\/(environment|client)$/.test(c.url.pathname));
    expect(boot.map((c) => `${c.method} ${c.url.pathname.split('/v1/')[1]}${c.url.searchParams.get('_method') ? ` _method=${c.url.searchParams.get('_method')}` : ''}`)).toEqual(
      expect.arrayContaining(['POST environment _method=PATCH', 'GET client']),
    );
    expect(boot.every((c) => c.status === 200 && c.url.searchParams.has('_clerk_js_version'))).toBe(true);
    await context.close();
  }, 60_000);
});

describe.skipIf(!hasChromium)('sign-up and sign-in', () => {
  it('signUp.create, the email code, setActive: clerk.user is the new user', async () => {
    const { context, page } = await x.openApp();
    const address = email('up');
    const created = await inPage(
      page,
      async (clerk, { address, password }) => {
        const su = await clerk.client.signUp.create({ emailAddress: address, password });
        await su.prepareEmailAddressVerification({ strategy: 'email_code' });
        return { status: su.status, unverified: su.unverifiedFields, inClient: clerk.client.signUp.id === su.id };
      },
      { address, password: PASSWORD },
    );
    expect(created).toEqual({ status: 'missing_requirements', unverified: ['email_address'], inClient: true });
    const code = await codeSentTo(x.h, address);
    const wrong = await apiError(page, (clerk, c: string) => clerk.client.signUp.attemptEmailAddressVerification({ code: c }), code === '000000' ? '111111' : '000000');
    expect(wrong).toMatchObject({ status: 422, codes: ['form_code_incorrect'], params: ['code'] });
    const done = await inPage(
      page,
      async (clerk, c) => {
        const su = await clerk.client.signUp.attemptEmailAddressVerification({ code: c });
        await clerk.setActive({ session: su.createdSessionId });
        return su.status as string;
      },
      code,
    );
    expect(done).toBe('complete');
    expect(await state(page)).toMatchObject({ email: address, userId: expect.stringMatching(/^user_/), sessionId: expect.stringMatching(/^sess_/) });
    await context.close();
  }, 60_000);

  it('signIn.create with a password; a wrong one is form_password_incorrect; sign-out', async () => {
    const address = email('in');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { context, page } = await x.openApp();
    const wrong = await apiError(page, (clerk, a: string) => clerk.client.signIn.create({ identifier: a, password: 'not the password at all' }), address);
    expect(wrong).toMatchObject({ status: 422, codes: ['form_password_incorrect'], params: ['password'] });
    const signedIn = await inPage(
      page,
      async (clerk, { address, password }) => {
        const si = await clerk.client.signIn.create({ identifier: address, password });
        await clerk.setActive({ session: si.createdSessionId });
        return si.status as string;
      },
      { address, password: PASSWORD },
    );
    expect(signedIn).toBe('complete');
    expect(await state(page)).toMatchObject({ userId, email: address });
    // Signing out sends the page to the after-sign-out URL (the app's root), where Clerk loads again.
    await Promise.all([page.waitForEvent('load'), inPage(page, async (clerk) => clerk.signOut(), null)]);
    await loadClerk(page);
    expect(await state(page)).toMatchObject({ userId: null, sessionId: null });
    expect(x.calls.some((c) => c.url.pathname.endsWith('/v1/client/sessions') && c.url.searchParams.get('_method') === 'DELETE' && c.status === 200)).toBe(true);
    await context.close();
  }, 60_000);

  it('prepareFirstFactor / attemptFirstFactor with an email code (the factor names email_address_id)', async () => {
    const address = email('code');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address] });
    const { context, page } = await x.openApp();
    const factor = await inPage(
      page,
      async (clerk, a) => {
        const si = await clerk.client.signIn.create({ identifier: a });
        const f = si.supportedFirstFactors.find((x: { strategy: string }) => x.strategy === 'email_code');
        await si.prepareFirstFactor({ strategy: 'email_code', emailAddressId: f.emailAddressId });
        return { status: si.status, emailAddressId: f.emailAddressId as string, inClient: clerk.client.signIn.id === si.id };
      },
      address,
    );
    expect(factor).toMatchObject({ status: 'needs_first_factor', emailAddressId: expect.stringMatching(/^idn_/), inClient: true });
    const code = await codeSentTo(x.h, address);
    await inPage(
      page,
      async (clerk, c) => {
        const si = await clerk.client.signIn.attemptFirstFactor({ strategy: 'email_code', code: c });
        await clerk.setActive({ session: si.createdSessionId });
      },
      code,
    );
    expect(await state(page)).toMatchObject({ userId, email: address });
    await context.close();
  }, 60_000);
});
