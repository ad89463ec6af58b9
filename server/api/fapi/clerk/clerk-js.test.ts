import { createClerkClient, verifyToken } from '@clerk/backend';
import { decodeJwt } from 'jose';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { enrollTotp } from '../../../testing/auth-flows';
import { createTestUser, setSettings, signedInClient, totpCode } from '../../../testing/fapi-helpers';
import { required } from '../../../testing/requirements';
import {
  apiError,
  CHROMIUM,
  clerkState,
  codeEmailedTo,
  signIn,
  hasChromiumBinary,
  inPage,
  loadClerk,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * `@clerk/clerk-js` 6.x, its own browser bundle from npm, unchanged, in Chromium, against an
 * instance's FAPI (server/api/fapi/clerk): the instance's pk_test_ key and `proxyUrl` = its fapi_url.
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

const emailedCode = (address: string) => codeEmailedTo(x, address);
const state = clerkState;

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
    expect(
      boot.map(
        (c) =>
          `${c.method} ${c.url.pathname.split('/v1/')[1]}${c.url.searchParams.get('_method') ? ` _method=${c.url.searchParams.get('_method')}` : ''}`,
      ),
    ).toEqual(expect.arrayContaining(['POST environment _method=PATCH', 'GET client']));
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
    const code = await emailedCode(address);
    const wrong = await apiError(
      page,
      (clerk, c: string) => clerk.client.signUp.attemptEmailAddressVerification({ code: c }),
      code === '000000' ? '111111' : '000000',
    );
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
    expect(await state(page)).toMatchObject({
      email: address,
      userId: expect.stringMatching(/^user_/),
      sessionId: expect.stringMatching(/^sess_/),
    });
    await context.close();
  }, 60_000);

  it('signIn.create with a password; a wrong one is form_password_incorrect; sign-out', async () => {
    const address = email('in');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { context, page } = await x.openApp();
    const wrong = await apiError(
      page,
      (clerk, a: string) => clerk.client.signIn.create({ identifier: a, password: 'not the password at all' }),
      address,
    );
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
    expect(
      x.calls.some(
        (c) => c.url.pathname.endsWith('/v1/client/sessions') && c.url.searchParams.get('_method') === 'DELETE' && c.status === 200,
      ),
    ).toBe(true);
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
    const code = await emailedCode(address);
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

/** The app's server side as a Clerk app writes it: `@clerk/backend`'s authenticateRequest, following its handshake redirects. */
function serveProtectedPage() {
  x.setAppHandler(async (req) => {
    const clerk = createClerkClient({
      secretKey: x.inst.secret,
      publishableKey: x.inst.publishableKey,
      apiUrl: x.apiUrl,
      apiVersion: 'v1',
      telemetry: { disabled: true },
    });
    const state = await clerk.authenticateRequest(req, { proxyUrl: x.fapiUrl });
    const location = state.headers.get('location');
    if (location) return new Response(null, { status: 307, headers: state.headers });
    const auth = state.isAuthenticated ? state.toAuth() : null;
    const headers = new Headers(state.headers);
    headers.set('content-type', 'application/json');
    return new Response(
      JSON.stringify({ status: state.status, reason: state.reason, userId: auth?.userId ?? null, sessionId: auth?.sessionId ?? null }),
      { headers },
    );
  });
}

const signInWithPassword = (page: Page, address: string) => signIn(page, address, PASSWORD);

describe.skipIf(!hasChromium)('tokens, cookies and @clerk/backend', () => {
  it('getToken, the __session and __client_uat cookies on the app, verifyToken and authenticateRequest (through the handshake) agree', async () => {
    const address = email('tok');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { context, page } = await x.openApp();
    await signInWithPassword(page, address);
    const token = await inPage(page, async (clerk) => clerk.session.getToken({ skipCache: true }), null);
    expect(token).toMatch(/^ey/);
    const cookies = await context.cookies(x.appOrigin);
    const session = cookies.find((c) => c.name === '__session');
    expect(session?.value).toMatch(/^ey/);
    expect(Number(cookies.find((c) => c.name === '__client_uat')?.value)).toBeGreaterThan(0);

    const verified = await verifyToken(session!.value, {
      secretKey: x.inst.secret,
      apiUrl: x.apiUrl,
      apiVersion: 'v1',
      authorizedParties: [x.appOrigin],
    });
    expect(verified).toMatchObject({ sub: userId, azp: x.appOrigin });

    // A page load: development keys and no dev browser on the app yet, so the SDK asks for the
    // handshake; the FAPI answers with the cookies, and the page lands signed in.
    serveProtectedPage();
    const handshakes = x.calls.length;
    await page.goto(`${x.appOrigin}/app/protected`);
    const body = JSON.parse((await page.textContent('body')) ?? '{}');
    expect(body).toMatchObject({ status: 'signed-in', userId });
    expect(x.calls.slice(handshakes).some((c) => c.url.pathname.endsWith('/v1/client/handshake'))).toBe(true);
    expect(page.url()).toBe(`${x.appOrigin}/app/protected`);
    const after = await context.cookies(x.appOrigin);
    expect(after.find((c) => c.name === '__clerk_db_jwt')?.value).toMatch(/^ct_/);

    // The handshake URL that browser followed, carried to another browser, signs that one in as nobody.
    const followed = x.calls
      .slice(handshakes)
      .find((c) => c.url.pathname.endsWith('/v1/client/handshake'))!
      .url.toString();
    const other = await x.openApp();
    await other.page.goto(followed);
    await other.page.waitForURL((u) => u.pathname === '/app/protected');
    expect(JSON.parse((await other.page.textContent('body')) ?? '{}')).toMatchObject({ status: 'signed-out', userId: null });
    await other.context.close();
    await context.close();
  }, 60_000);

  it('createOrganization and setActive({ organization }): clerk.organization, and the token carries org_id', async () => {
    const address = email('org');
    await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { context, page } = await x.openApp();
    await signInWithPassword(page, address);
    const orgId = await inPage(
      page,
      async (clerk) => {
        const org = await clerk.createOrganization({ name: 'Acme' });
        await clerk.setActive({ organization: org.id });
        return org.id as string;
      },
      null,
    );
    expect(orgId).toMatch(/^org_/);
    const seen = await inPage(
      page,
      async (clerk) => ({
        id: clerk.organization?.id,
        name: clerk.organization?.name,
        role: clerk.user?.organizationMemberships?.[0]?.role,
      }),
      null,
    );
    expect(seen).toEqual({ id: orgId, name: 'Acme', role: 'org:admin' });
    const token = await inPage(page, async (clerk) => clerk.session.getToken({ skipCache: true }), null);
    const claims = await verifyToken(token, { secretKey: x.inst.secret, apiUrl: x.apiUrl, apiVersion: 'v1' });
    expect(claims).toMatchObject({ org_id: orgId, org_role: 'org:admin' });

    // A member added by the backend; the admin changes their role, lists and removes them through clerk-js.
    const colleague = await createTestUser(x.h, x.inst, { email_address: [email('org-colleague')], password: PASSWORD });
    const added = await x.h.call('POST', `/v1/organizations/${orgId}/memberships`, {
      key: x.inst.secret,
      body: { user_id: colleague, role: 'org:member' },
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const members = await inPage(
      page,
      async (clerk, userId) => {
        const org = clerk.organization!;
        const updated = await org.updateMember({ userId, role: 'org:admin' });
        const listed = await org.getMemberships();
        await org.removeMember(userId);
        const after = await org.getMemberships();
        return { updated: updated.role, listed: listed.total_count, after: after.total_count };
      },
      colleague,
    );
    expect(members).toEqual({ updated: 'org:admin', listed: 2, after: 1 });
    await context.close();
  }, 60_000);

  it('user.update, and an email address added and verified with its code through clerk.user', async () => {
    const address = email('user');
    const added = email('user-added');
    await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { context, page } = await x.openApp();
    await signInWithPassword(page, address);
    const named = await inPage(
      page,
      async (clerk) => (await clerk.user.update({ firstName: 'Ada', lastName: 'Lovelace' })).fullName as string,
      null,
    );
    expect(named).toBe('Ada Lovelace');
    await inPage(
      page,
      async (clerk, a) => {
        const e = await clerk.user.createEmailAddress({ email: a });
        await e.prepareVerification({ strategy: 'email_code' });
      },
      added,
    );
    const code = await emailedCode(added);
    const status = await inPage(
      page,
      async (clerk, { a, code }) => {
        await clerk.user.reload();
        const e = clerk.user.emailAddresses.find((x: { emailAddress: string }) => x.emailAddress === a);
        return (await e.attemptVerification({ code })).verification.status as string;
      },
      { a: added, code },
    );
    expect(status).toBe('verified');
    expect(await inPage(page, async (clerk) => ({ first: clerk.user.firstName, emails: clerk.user.emailAddresses.length }), null)).toEqual({
      first: 'Ada',
      emails: 2,
    });
    await context.close();
  }, 60_000);

  it('a signed-out browser: authenticateRequest answers signed-out after the handshake', async () => {
    serveProtectedPage();
    const { context, page } = await x.openApp();
    await page.goto(`${x.appOrigin}/app/protected`);
    expect(JSON.parse((await page.textContent('body')) ?? '{}')).toMatchObject({ status: 'signed-out', userId: null });
    await context.close();
  }, 60_000);
});

// Last: enrolling TOTP moves the server's test clock forward (30 s), ahead of the browser's.
describe.skipIf(!hasChromium)('Clerk’s prebuilt UI (@clerk/ui)', () => {
  it('mountSignIn shows the application’s name and signs in with a password through its screens', async () => {
    const address = email('ui');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { context, page } = await x.openApp({ ui: true });
    await inPage(page, async (clerk) => clerk.mountSignIn(document.getElementById('app'), { fallbackRedirectUrl: '/signed-in' }), null);
    await page.getByText('Sign in to Test').waitFor({ timeout: 15_000 });
    await page.locator('input[name="identifier"]').fill(address);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await page.locator('input[name="password"]').fill(PASSWORD);
    // Signed in, the component sends the page to the after-sign-in URL, where Clerk loads again.
    await Promise.all([
      page.waitForURL(`${x.appOrigin}/signed-in`, { timeout: 20_000 }),
      page.getByRole('button', { name: 'Continue', exact: true }).click(),
    ]);
    await loadClerk(page);
    expect(await state(page)).toMatchObject({ userId, email: address });
    await context.close();
  }, 90_000);
});

describe.skipIf(!hasChromium)('Clerk’s prebuilt UI: sign-up and profile', () => {
  it('mountSignUp: email and password, the emailed code, signed in; mountUserProfile shows the account', async () => {
    const address = email('ui-up');
    const { context, page } = await x.openApp({ ui: true });
    await inPage(
      page,
      async (clerk) => clerk.mountSignUp(document.getElementById('app'), { fallbackRedirectUrl: '/signed-up?ui=1' }),
      null,
    );
    await page.getByText('Create your account').waitFor({ timeout: 15_000 });
    await page.locator('input[name="emailAddress"]').fill(address);
    await page.locator('input[name="password"]').fill(PASSWORD);
    await page.getByRole('button', { name: 'Continue', exact: true }).click();
    await page.getByText('Verify your email').waitFor({ timeout: 15_000 });
    const code = await emailedCode(address);
    await Promise.all([page.waitForURL(`${x.appOrigin}/signed-up?ui=1`, { timeout: 20_000 }), page.keyboard.type(code)]);
    await loadClerk(page);
    expect(await state(page)).toMatchObject({ email: address, userId: expect.stringMatching(/^user_/) });

    await inPage(page, async (clerk) => clerk.mountUserProfile(document.getElementById('app')), null);
    await page.getByText(address).first().waitFor({ timeout: 15_000 });
    await context.close();
  }, 90_000);
});

describe.skipIf(!hasChromium)('the dev browser (Clerk’s development contract)', () => {
  const clerkParams = '__clerk_api_version=2026-08-20&_clerk_js_version=6.40.0';
  const fapi = (path: string, init: RequestInit = {}, devBrowser?: string) =>
    fetch(`${x.fapiUrl}${path}${path.includes('?') ? '&' : '?'}${clerkParams}${devBrowser ? `&__clerk_db_jwt=${devBrowser}` : ''}`, {
      ...init,
      headers: { origin: x.appOrigin, ...(init.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}), ...init.headers },
    });

  it('POST /v1/dev_browser names a client; __clerk_db_jwt is that client on every request, and follows a sign-in’s rotation (Clerk-Db-Jwt)', async () => {
    const created = await fapi('/v1/dev_browser', { method: 'POST' });
    expect(created.status).toBe(200);
    const { id: devBrowser } = (await created.json()) as { id: string };
    expect(devBrowser).toMatch(/^ct_/);

    const address = email('db');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const signIn = await fapi(
      '/v1/client/sign_ins',
      { method: 'POST', body: new URLSearchParams({ identifier: address, password: PASSWORD, locale: 'en-US' }) },
      devBrowser,
    );
    expect(signIn.status).toBe(200);
    const rotated = signIn.headers.get('clerk-db-jwt');
    expect(rotated).toMatch(/^ct_/);
    expect(rotated).not.toBe(devBrowser);
    const body = (await signIn.json()) as { response: { status: string }; client: { sessions: { user: { id: string } }[] } };
    expect(body.response.status).toBe('complete');
    expect(body.client.sessions[0]!.user.id).toBe(userId);

    const client = (await (await fapi('/v1/client', {}, rotated!)).json()) as { response: { sessions: { user: { id: string } }[] } };
    expect(client.response.sessions.map((s) => s.user.id)).toEqual([userId]);
    // The token before the rotation names nobody any more.
    expect(((await (await fapi('/v1/client', {}, devBrowser)).json()) as { response: unknown }).response).toBeNull();
  }, 60_000);

  it('an app URL carrying __clerk_db_jwt, opened in another browser, signs that browser in as the client’s user on a test instance (Clerk’s development contract), but not a browser with a client of its own', async () => {
    serveProtectedPage();
    const address = email('carried');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const a = await x.openApp();
    await signInWithPassword(a.page, address);
    await a.page.goto(`${x.appOrigin}/app/protected`);
    const signedIn = JSON.parse((await a.page.textContent('body')) ?? '{}') as { sessionId: string };
    expect(signedIn).toMatchObject({ status: 'signed-in', userId });
    // The handshake gave the app the dev browser: the client's own token.
    const devBrowser = (await a.context.cookies(x.appOrigin)).find((c) => c.name === '__clerk_db_jwt')!.value;
    expect(devBrowser).toMatch(/^ct_/);
    const carried = `${x.appOrigin}/app/protected?__clerk_db_jwt=${devBrowser}`;

    // Another browser, with no cookie of the FAPI's nor of the app's: @clerk/backend syncs the dev
    // browser from the URL through the handshake, and the page lands signed in as that user.
    const b = await x.browser.newContext();
    const bPage = await b.newPage();
    await bPage.goto(carried);
    await bPage.waitForURL((u) => u.pathname === '/app/protected' && !u.searchParams.has('__clerk_db_jwt'));
    expect(JSON.parse((await bPage.textContent('body')) ?? '{}')).toMatchObject({ status: 'signed-in', userId });
    expect((await b.cookies(x.appOrigin)).find((c) => c.name === '__clerk_db_jwt')?.value).toBe(devBrowser);

    // A browser signed in as someone else keeps its own account: the FAPI's own client cookie wins over the URL's token.
    const otherAddress = email('carried-other');
    const otherId = await createTestUser(x.h, x.inst, { email_address: [otherAddress], password: PASSWORD });
    const c = await x.openApp();
    await signInWithPassword(c.page, otherAddress);
    await c.page.goto(carried);
    await c.page.waitForURL((u) => u.pathname === '/app/protected' && !u.searchParams.has('__clerk_db_jwt'));
    expect(JSON.parse((await c.page.textContent('body')) ?? '{}')).toMatchObject({ status: 'signed-in', userId: otherId });
    expect((await c.context.cookies(x.appOrigin)).find((k) => k.name === '__clerk_db_jwt')?.value).not.toBe(devBrowser);

    // The URL carries the client, not a copy of its session: once that session is over, the link signs in nobody.
    expect((await x.h.call('POST', `/v1/sessions/${signedIn.sessionId}/revoke`, { key: x.inst.secret })).status).toBe(200);
    const d = await x.browser.newContext();
    const dPage = await d.newPage();
    await dPage.goto(carried);
    await dPage.waitForURL((u) => u.pathname === '/app/protected' && !u.searchParams.has('__clerk_db_jwt'));
    expect(JSON.parse((await dPage.textContent('body')) ?? '{}')).toMatchObject({ status: 'signed-out', userId: null });
    for (const ctx of [a.context, b, c.context, d]) await ctx.close();
  }, 90_000);

  it('live instances honour no dev-browser token: a signed-in client’s token as __clerk_db_jwt is nobody, on the FAPI and the handshake', async () => {
    const live = await x.h.createInstance({ environment: 'live' });
    await setSettings(x.h, live.instanceId, { allowed_origins: [x.appOrigin] });
    const liveFapi = `${x.apiUrl}/fapi/${live.instanceId}`;
    expect((await fetch(`${liveFapi}/v1/dev_browser?${clerkParams}`, { method: 'POST', headers: { origin: x.appOrigin } })).status).toBe(
      404,
    );

    const userId = await createTestUser(x.h, live, { email_address: [email('live')] });
    const { b: signedIn, sessionId } = await signedInClient(x.h, live, userId);
    const token = signedIn.token!;
    const getClient = (headers: Record<string, string>, query = '') =>
      fetch(`${liveFapi}/v1/client?${clerkParams}${query}`, { headers }).then(
        async (r) => ((await r.json()) as { response: { sessions: { id: string }[] } | null }).response,
      );
    // The token is good: as the FAPI's cookie it is the signed-in client.
    expect((await getClient({ cookie: `__client=${token}` }))?.sessions.map((s) => s.id)).toEqual([sessionId]);
    // In the URL, on a live instance, it is nobody.
    expect(await getClient({}, `&__clerk_db_jwt=${token}`)).toBeNull();
    const minted = await fetch(`${liveFapi}/v1/client/sessions/${sessionId}/tokens?${clerkParams}&__clerk_db_jwt=${token}`, {
      method: 'POST',
      headers: { origin: x.appOrigin },
    });
    expect(minted.status).toBeGreaterThanOrEqual(400);

    // The handshake a carried link would reach: the app is told to drop its session, and gets no dev browser.
    const handshake = await fetch(
      `${liveFapi}/v1/client/handshake?redirect_url=${encodeURIComponent(`${x.appOrigin}/app/protected`)}&${clerkParams}&__clerk_db_jwt=${token}`,
      { redirect: 'manual' },
    );
    expect(handshake.status).toBe(302);
    const directives = decodeJwt(new URL(handshake.headers.get('location')!).searchParams.get('__clerk_handshake')!).handshake as string[];
    expect(directives.find((d) => d.startsWith('__session='))).toMatch(/^__session=;.*Max-Age=0/);
    expect(directives.some((d) => d.startsWith('__clerk_db_jwt'))).toBe(false);
  }, 30_000);

  it('live instances hand out no dev browser', async () => {
    const live = await x.h.createInstance({ environment: 'live' });
    const res = await fetch(`${x.apiUrl}/fapi/${live.instanceId}/v1/dev_browser?${clerkParams}`, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('resource_not_found');
  }, 30_000);
});

// Last: enrolling TOTP moves the server’s clock a 30 s step ahead of real time, and @clerk/backend in the
// app checks a session token’s nbf against real time (5 s of skew).
describe.skipIf(!hasChromium)('second factors and multi-session', () => {
  it('a TOTP user: needs_second_factor, a wrong code is form_code_incorrect, the right one completes; a backup code works too', async () => {
    const address = email('totp');
    const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
    const { secret, backupCodes } = await enrollTotp(x.h, x.inst.instanceId, userId);
    const { context, page } = await x.openApp();
    const first = await inPage(
      page,
      async (clerk, { address, password }) => {
        const si = await clerk.client.signIn.create({ identifier: address, password });
        return {
          status: si.status as string,
          factors: si.supportedSecondFactors?.map((f: { strategy: string }) => f.strategy) as string[],
        };
      },
      { address, password: PASSWORD },
    );
    expect(first).toEqual({ status: 'needs_second_factor', factors: ['totp', 'backup_code'] });
    const wrong = await apiError(
      page,
      (clerk, c: string) => clerk.client.signIn.attemptSecondFactor({ strategy: 'totp', code: c }),
      '000000',
    );
    expect(wrong).toMatchObject({ status: 422, codes: ['form_code_incorrect'], params: ['code'] });
    await inPage(
      page,
      async (clerk, code) => {
        const si = await clerk.client.signIn.attemptSecondFactor({ strategy: 'totp', code });
        await clerk.setActive({ session: si.createdSessionId });
      },
      totpCode(x.h, secret),
    );
    expect(await state(page)).toMatchObject({ userId, email: address });
    await context.close();

    const second = await x.openApp();
    await inPage(
      second.page,
      async (clerk, { address, password, code }) => {
        await clerk.client.signIn.create({ identifier: address, password });
        const si = await clerk.client.signIn.attemptSecondFactor({ strategy: 'backup_code', code });
        await clerk.setActive({ session: si.createdSessionId });
      },
      { address, password: PASSWORD, code: backupCodes[0]! },
    );
    expect(await state(second.page)).toMatchObject({ userId });
    await second.context.close();
  }, 60_000);

  it('two accounts in one browser: both sessions on the client, setActive switches between them', async () => {
    const [a, b] = [email('multi-a'), email('multi-b')];
    const ids = [
      await createTestUser(x.h, x.inst, { email_address: [a], password: PASSWORD }),
      await createTestUser(x.h, x.inst, { email_address: [b], password: PASSWORD }),
    ];
    const { context, page } = await x.openApp();
    await signInWithPassword(page, a);
    const firstSession = (await state(page)).sessionId;
    await signInWithPassword(page, b);
    const both = await state(page);
    expect(both).toMatchObject({ userId: ids[1], email: b });
    expect(both.sessions).toHaveLength(2);
    await inPage(page, async (clerk, s) => clerk.setActive({ session: s }), firstSession);
    expect(await state(page)).toMatchObject({ userId: ids[0], sessionId: firstSession });
    await context.close();
  }, 60_000);
});
