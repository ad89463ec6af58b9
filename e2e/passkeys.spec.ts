import { expect, test, type BrowserContext, type Page } from '@playwright/test';
import consoleEn from '../messages/en/console.json' with { type: 'json' };
import en from '../messages/en/hosted.json' with { type: 'json' };
import pk from '../messages/en/passkeys.json' with { type: 'json' };
import { BUDGETS } from '../server/limits/budgets';
import { cli, createOperatorAccount, hostedSignUp, uniqueEmail } from './support/helpers';

/**
 * Passkeys in Chromium with the DevTools protocol's virtual authenticator (a platform
 * authenticator with resident keys and user verification): turned on in the console, registered
 * on the hosted profile, then signing in by autofill (conditional UI), with the button after an
 * identifier, refused for a cloned credential and on another instance.
 */

/** A virtual authenticator in this page's browser; answers its id and the CDP session. */
async function virtualAuthenticator(page: Page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('WebAuthn.enable', { enableUI: false });
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: {
      protocol: 'ctap2',
      transport: 'internal',
      hasResidentKey: true,
      hasUserVerification: true,
      isUserVerified: true,
      automaticPresenceSimulation: true,
    },
  });
  return { cdp, authenticatorId };
}

async function passkeysOn(page: Page, accountId: string, name: string) {
  const instance = cli<{ instance_id: string; fapi_url: string }>(
    'instance',
    'create',
    '--name',
    name,
    '--env',
    'test',
    '--account',
    accountId,
  );
  await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/settings/sign-up`);
  await page.getByLabel(pk.settings.label).check();
  await page.getByRole('button', { name: consoleEn.unsaved.save }).click();
  await expect(page.getByText(consoleEn.unsaved.saved)).toBeVisible();
  // What the hosted pages read: the FAPI environment offers passkeys once the instance cache (5 s) has the save.
  await expect
    .poll(
      async () =>
        ((await (await fetch(`${instance.fapi_url}/v1/environment`)).json()) as { user_settings: { first_factors: string[] } })
          .user_settings.first_factors,
      { timeout: 15_000 },
    )
    .toContain('passkey');
  const key = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  return { ...instance, secret: key.secret };
}

/** A browser without passkey autofill (conditional mediation): the hosted sign-in offers only its button. */
function withoutAutofill() {
  PublicKeyCredential.isConditionalMediationAvailable = () => Promise.resolve(false);
}

async function signedOut(context: BrowserContext) {
  await context.clearCookies();
}

test('passkeys: register on the hosted profile, sign in by autofill and with an identifier; a clone and another instance are refused', async ({
  page,
  browser,
}) => {
  const accountId = await createOperatorAccount(page, {
    firstName: 'Pia',
    email: uniqueEmail('passkey-owner'),
    password: 'passkey owner passphrase',
    accountName: 'Passkey Co',
  });
  const instance = await passkeysOn(page, accountId, 'Passkey Shop');
  const other = await passkeysOn(page, accountId, 'Other Shop');

  const context = await browser.newContext();
  const user = await context.newPage();
  const { cdp, authenticatorId } = await virtualAuthenticator(user);
  const email = uniqueEmail('pasi');

  await test.step('sign up, then add a passkey on the profile’s security tab', async () => {
    await hostedSignUp(user, instance, email, 'a passkey user passphrase');
    // The sign-up landed on the profile: the hash alone (no reload) opens the Security tab.
    await user.goto(`${instance.fapi_url}/profile#security`);
    await expect(user.getByRole('tab', { name: en.profile.tabs.security })).toHaveAttribute('aria-selected', 'true');
    await user.getByRole('button', { name: pk.profile.add }).click();
    await expect(user.getByRole('list', { name: pk.profile.title }).getByText('Passkey', { exact: true })).toBeVisible();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]!.isResidentCredential).toBe(true);
  });

  await test.step('signed out, the identifier field offers the passkey (conditional UI) and it signs in', async () => {
    await signedOut(context);
    await user.goto(`${instance.fapi_url}/sign-in`);
    await expect(user.getByLabel(en.fields.identifier)).toHaveAttribute('autocomplete', 'username webauthn');
    // Chromium's virtual environment answers a conditional (autofill) request as soon as the page
    // makes it, where a person would pick the passkey in the field's autofill: no click here.
    await expect(user.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
  });

  // From here on, browsers without passkey autofill: the button is the way in, and no autofill
  // request answered on page load races it (nor retries a refused answer).
  await context.addInitScript(withoutAutofill);

  await test.step('signed out again, the button after the identifier signs in with that user’s passkey', async () => {
    await signedOut(context);
    await user.goto(`${instance.fapi_url}/sign-in`);
    await user.getByLabel(en.fields.identifier).fill(email);
    await user.getByRole('button', { name: pk.signIn.button }).click();
    await expect(user.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
  });

  await test.step('a cloned credential (the same key, its counter behind) is refused', async () => {
    // Every browser here shares 127.0.0.1, and its attempts on this instance (the sign-up's code,
    // two passkey sign-ins) spent the per-IP attempt budget: the clone's answer waits out its window.
    await user.waitForTimeout(BUDGETS.attempts_per_ip.windowMs);
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    const genuine = credentials[0]!;
    expect(genuine.signCount).toBeGreaterThan(1);
    const cloneContext = await browser.newContext();
    await cloneContext.addInitScript(withoutAutofill);
    const attacker = await cloneContext.newPage();
    const clone = await virtualAuthenticator(attacker);
    await clone.cdp.send('WebAuthn.addCredential', { authenticatorId: clone.authenticatorId, credential: { ...genuine, signCount: 0 } });
    await attacker.goto(`${instance.fapi_url}/sign-in`);
    await attacker.getByRole('button', { name: pk.signIn.button }).click();
    await expect(attacker.getByRole('alert').filter({ hasText: en.errors.passkeyCloned })).toBeVisible();
    await expect(attacker.getByRole('heading', { name: en.profile.title, level: 1 })).toHaveCount(0);
    await cloneContext.close();
  });

  await test.step('another instance on the same host does not take this passkey', async () => {
    await signedOut(context);
    await user.goto(`${other.fapi_url}/sign-in`);
    await user.getByRole('button', { name: pk.signIn.button }).click();
    await expect(user.getByRole('alert').filter({ hasText: en.errors.passkeyUnknown })).toBeVisible();
    await expect(user.getByRole('heading', { name: en.profile.title, level: 1 })).toHaveCount(0);
  });

  await context.close();
});
