import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bapiWith, createTestUser, setSettings, totpCode } from '../../../testing/fapi-helpers';
import { enrollTotp } from '../../../testing/auth-flows';
import { required } from '../../../testing/requirements';
import { makeSamlIdp, samlIdpFor, type SamlIdpForConnection } from '../../../testing/saml-idp';
import { openOidcIdp, startFakeGitHub, type OidcIdp } from '../../../testing/social-idps';
import {
  CHROMIUM,
  clerkState,
  hasChromiumBinary,
  inPage,
  loadClerk,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * Social and enterprise SSO redirects started from `@clerk/clerk-js` 6.x (its browser bundle,
 * unchanged, in Chromium): `signIn.authenticateWithRedirect` / `signUp.authenticateWithRedirect`,
 * the provider or IdP on loopback, Latchkey's callback, then the app's callback page with
 * `Clerk.handleRedirectCallback()` — or, signed in at once, the complete URL. A new user of a
 * sign-in is Clerk's transfer (`transferable`, then `signUp.create({ transfer: true })`); the
 * callback URL opened by another browser signs nobody in.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

const SAML_DOMAIN = 'saml-corp.test';
const OIDC_DOMAIN = 'oidc-corp.test';

let x: ClerkBrowserHarness;
let gh: Awaited<ReturnType<typeof startFakeGitHub>>;
let idp: OidcIdp;
let saml: Awaited<ReturnType<typeof startSamlIdp>>;
let seq = 0;

/** An organization with `domain` verified and an active SSO connection for it. */
async function ssoConnection(domain: string, provider: 'saml' | 'oidc', config: Record<string, unknown>) {
  const bapi = bapiWith(x.h, x.inst);
  const org = await bapi.ok('POST', '/v1/organizations', { name: `Corp ${provider}` });
  const d = await bapi.ok('POST', `/v1/organizations/${org.id}/domains`, { name: domain });
  await bapi.ok('PATCH', `/v1/organizations/${org.id}/domains/${d.id}`, { verified: true });
  const conn = await bapi.call('POST', '/v1/sso_connections', {
    organization_id: org.id,
    provider,
    name: `Corp ${provider}`,
    domains: [domain],
    active: true,
    [provider]: config,
  });
  expect(conn.status, JSON.stringify(conn.body)).toBe(201);
  return { org: org.id as string, conn: conn.body };
}

/** A SAML IdP on loopback: its single sign-on URL answers the AuthnRequest with a signed response posted to the ACS (an auto-submitted form, as IdPs do). */
async function startSamlIdp() {
  const state = { email: '', forConnection: undefined as SamlIdpForConnection | undefined, acs: '' };
  const server = http.createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url!, 'http://idp.invalid');
      const idpUrl = `${saml.url}${url.pathname}${url.search}`;
      const requestId = await state.forConnection!.requestIdOf(idpUrl);
      const response = await state.forConnection!.response(requestId, { email: state.email });
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<form method="post" action="${state.acs}"><input type="hidden" name="SAMLResponse" value="${response}"></form><script>document.forms[0].submit()</script>`,
        );
    })().catch((e: unknown) => res.writeHead(500).end(String(e)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return Object.assign(state, { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
}

beforeAll(async () => {
  if (!hasChromium) return;
  x = await startClerkBrowserHarness({ settings: { name_required: false }, env: { ALLOW_PRIVATE_TARGETS: '1' } });
  const bapi = bapiWith(x.h, x.inst);
  await setSettings(x.h, x.inst.instanceId, { redirect_urls: [`${x.appOrigin}/`] });

  gh = await startFakeGitHub({ clientId: 'gh-client', clientSecret: 'gh-secret' });
  const provider = (body: Record<string, unknown>) =>
    bapi.call('POST', '/v1/social_providers', body).then((res) => expect(res.status, JSON.stringify(res.body)).toBe(201));
  await provider({ kind: 'github', client_id: 'gh-client', client_secret: 'gh-secret', endpoints: gh.endpoints });

  idp = await openOidcIdp();
  await provider({
    kind: 'oidc',
    name: 'custom_acme',
    display_name: 'Acme ID',
    issuer: idp.issuer,
    client_id: 'latchkey',
    client_secret: 'idp-secret',
  });
  const oidcSso = await ssoConnection(OIDC_DOMAIN, 'oidc', { issuer: idp.issuer, client_id: 'latchkey', client_secret: 'idp-secret' });
  idp.serve({
    clientId: 'latchkey',
    clientSecret: 'idp-secret',
    redirectUris: [`${x.fapiUrl}/v1/oauth_callback`, oidcSso.conn.oidc.redirect_uri],
  });

  saml = await startSamlIdp();
  const samlIdp = makeSamlIdp({ entityId: `${saml.url}/metadata`, ssoUrl: `${saml.url}/sso` });
  const samlSso = await ssoConnection(SAML_DOMAIN, 'saml', { idp_metadata_xml: samlIdp.getMetadata() });
  saml.forConnection = await samlIdpFor(x.h, x.inst.instanceId, samlSso.conn, {
    idp: samlIdp,
    entityId: `${saml.url}/metadata`,
    origin: saml.url,
  });
  saml.acs = samlSso.conn.saml.sp_acs_url;
}, 120_000);
afterAll(async () => {
  await x?.close();
  await gh?.close();
  await idp?.close();
  saml?.server.closeAllConnections();
  if (saml) await new Promise((resolve) => saml.server.close(resolve));
});

/** Starts `authenticateWithRedirect` on the page (sign-in or sign-up) and waits for the browser to land on `landing`. */
async function redirectFlow(page: Page, resource: 'signIn' | 'signUp', params: Record<string, string>, landing: RegExp) {
  const started = inPage(
    page,
    async (clerk, { resource, params }) => {
      await clerk.client[resource].authenticateWithRedirect(params);
    },
    { resource, params },
  ).catch(() => undefined); // the page navigates away
  await page.waitForURL(landing, { timeout: 30_000 });
  await started;
  await loadClerk(page);
}

const urls = () => ({ redirectUrl: `${x.appOrigin}/sso-callback`, redirectUrlComplete: `${x.appOrigin}/done` });

/** The app's callback page: `handleRedirectCallback` finishes the sign-in (or the transfer) and navigates on. */
const handleCallback = (page: Page) =>
  inPage(
    page,
    async (clerk, after) => {
      await clerk.handleRedirectCallback({ signInForceRedirectUrl: after, signUpForceRedirectUrl: after });
    },
    `${x.appOrigin}/after-callback`,
  );

describe.skipIf(!hasChromium)('social and SSO redirects started from clerk-js', () => {
  it('oauth_github: an existing user (verified address) is signed in and lands on redirectUrlComplete', async () => {
    const email = `gh-${++seq}@example.com`;
    const userId = await createTestUser(x.h, x.inst, { email_address: [email] });
    gh.loginAs = { id: 4200 + seq, login: `gh${seq}`, name: 'Grace Hopper', emails: [{ email, primary: true, verified: true }] };
    const { context, page } = await x.openApp();
    await redirectFlow(page, 'signIn', { strategy: 'oauth_github', ...urls() }, /\/done$/);
    expect(await clerkState(page)).toMatchObject({ userId, email });
    await context.close();
  }, 90_000);

  it('oauth_github for a user with TOTP: the callback leaves the sign-in needs_second_factor, handleRedirectCallback sends to the second factor, attemptSecondFactor signs in', async () => {
    const email = `gh-mfa-${++seq}@example.com`;
    const userId = await createTestUser(x.h, x.inst, { email_address: [email] });
    const { secret } = await enrollTotp(x.h, x.inst.instanceId, userId);
    gh.loginAs = { id: 4200 + seq, login: `gh${seq}`, name: 'Grace Hopper', emails: [{ email, primary: true, verified: true }] };
    const { context, page } = await x.openApp();
    await redirectFlow(page, 'signIn', { strategy: 'oauth_github', ...urls() }, /\/sso-callback/);
    expect(await inPage(page, async (clerk) => ({ status: clerk.client.signIn.status, user: clerk.user?.id ?? null }), null)).toEqual({
      status: 'needs_second_factor',
      user: null,
    });
    await inPage(
      page,
      async (clerk, secondFactorUrl) => clerk.handleRedirectCallback({ secondFactorUrl }),
      `${x.appOrigin}/factor-two`,
    ).catch(() => undefined);
    await page.waitForURL(/\/factor-two/, { timeout: 30_000 });
    await loadClerk(page);
    const wrong = await inPage(
      page,
      async (clerk) =>
        clerk.client.signIn.attemptSecondFactor({ strategy: 'totp', code: '000000' }).then(
          () => null,
          (e: { errors?: { code: string }[] }) => e.errors?.[0]?.code,
        ),
      null,
    );
    expect(wrong).toBe('form_code_incorrect');
    const done = await inPage(
      page,
      async (clerk, code) => {
        const si = await clerk.client.signIn.attemptSecondFactor({ strategy: 'totp', code });
        await clerk.setActive({ session: si.createdSessionId });
        return { status: si.status as string, sessionId: si.createdSessionId as string };
      },
      totpCode(x.h, secret),
    );
    expect(done).toMatchObject({ status: 'complete', sessionId: expect.stringMatching(/^sess_/) });
    expect(await clerkState(page)).toMatchObject({ userId, email, sessionId: done.sessionId });
    await context.close();
  }, 90_000);

  it('oauth_custom_acme: a new user is transferable; handleRedirectCallback transfers to a sign-up, which signs them in', async () => {
    const sub = `acme-${++seq}`;
    const email = `acme-${seq}@example.com`;
    idp.accounts.set(sub, { email, email_verified: true, given_name: 'Ada', family_name: 'Lovelace' });
    idp.loginAs = sub;
    const { context, page } = await x.openApp();
    await redirectFlow(page, 'signIn', { strategy: 'oauth_custom_acme', ...urls() }, /\/sso-callback/);
    const pending = await inPage(
      page,
      async (clerk) => ({
        status: clerk.client.signIn.status,
        ffv: clerk.client.signIn.firstFactorVerification.status,
        code: clerk.client.signIn.firstFactorVerification.error?.code,
        user: clerk.user?.id ?? null,
      }),
      null,
    );
    expect(pending).toEqual({ status: 'needs_identifier', ffv: 'transferable', code: 'external_account_not_found', user: null });
    await handleCallback(page).catch(() => undefined);
    await page.waitForURL(/\/after-callback$/, { timeout: 30_000 });
    await loadClerk(page);
    const state = await clerkState(page);
    expect(state.email).toBe(email);
    const user = await bapiWith(x.h, x.inst).ok('GET', `/v1/users/${state.userId}`);
    expect(user).toMatchObject({ first_name: 'Ada', last_name: 'Lovelace' });
    // The transfer is spent: again answers that nothing waits.
    const again = await inPage(
      page,
      async (clerk) =>
        clerk.client.signUp.create({ transfer: true }).then(
          () => null,
          (e: { errors?: { meta?: { paramName?: string } }[] }) => e.errors?.[0]?.meta?.paramName,
        ),
      null,
    );
    expect(again).toBe('transfer');
    await context.close();
  }, 90_000);

  it('the provider’s callback URL opened in another browser signs nobody in (flow_binding_mismatch), and the victim’s flow is spent', async () => {
    const email = `victim-${++seq}@example.com`;
    await createTestUser(x.h, x.inst, { email_address: [email] });
    gh.loginAs = { id: 4200 + seq, login: `victim${seq}`, name: 'Victim', emails: [{ email, primary: true, verified: true }] };
    const victim = await x.openApp();
    let callback = '';
    // The provider answers the victim's browser with the callback URL; it is taken before the victim follows it.
    await victim.context.route(/\/login\/oauth\/authorize/, async (route) => {
      callback = (await route.fetch({ maxRedirects: 0 })).headers().location ?? '';
      await route.abort();
    });
    void inPage(victim.page, async (clerk, params) => clerk.client.signIn.authenticateWithRedirect(params), {
      strategy: 'oauth_github',
      ...urls(),
    }).catch(() => undefined);
    await expect.poll(() => callback, { timeout: 30_000 }).toContain('code=');

    const attacker = await x.openApp();
    const res = await attacker.page.goto(callback);
    expect(res?.status()).toBe(403);
    expect(await attacker.page.content()).toContain('flow_binding_mismatch');
    await attacker.page.goto(`${x.appOrigin}/`);
    await loadClerk(attacker.page);
    expect(await clerkState(attacker.page)).toMatchObject({ userId: null, sessions: [] });
    await victim.page.goto(`${x.appOrigin}/`);
    await loadClerk(victim.page);
    expect(await clerkState(victim.page)).toMatchObject({ userId: null });
    await victim.context.close();
    await attacker.context.close();
  }, 90_000);

  it('signUp.authenticateWithRedirect: a new user is signed up through the provider and lands on redirectUrlComplete', async () => {
    const sub = `acme-up-${++seq}`;
    const email = `acme-up-${seq}@example.com`;
    idp.accounts.set(sub, { email, email_verified: true });
    idp.loginAs = sub;
    const { context, page } = await x.openApp();
    await redirectFlow(page, 'signUp', { strategy: 'oauth_custom_acme', ...urls() }, /\/done$/);
    expect((await clerkState(page)).email).toBe(email);
    await context.close();
  }, 90_000);

  it('enterprise_sso (OIDC connection): the user of the domain signs in at the IdP, joins the organization and lands on redirectUrlComplete', async () => {
    const sub = `oidc-sso-${++seq}`;
    const email = `sso-${seq}@${OIDC_DOMAIN}`;
    idp.accounts.set(sub, { email, email_verified: true });
    idp.loginAs = sub;
    const { context, page } = await x.openApp();
    await redirectFlow(page, 'signIn', { strategy: 'enterprise_sso', identifier: email, ...urls() }, /\/done$/);
    const state = await inPage(
      page,
      async (clerk) => ({ email: clerk.user?.primaryEmailAddress?.emailAddress, orgs: clerk.user?.organizationMemberships?.length }),
      null,
    );
    expect(state).toEqual({ email, orgs: 1 });
    await context.close();
  }, 90_000);

  it('saml (Clerk’s former strategy name): the IdP posts its response to the ACS and the user lands signed in', async () => {
    const email = `saml-${++seq}@${SAML_DOMAIN}`;
    saml.email = email;
    const { context, page } = await x.openApp();
    await redirectFlow(page, 'signIn', { strategy: 'saml', identifier: email, ...urls() }, /\/done$/);
    expect((await clerkState(page)).email).toBe(email);
    await context.close();
  }, 90_000);
});
