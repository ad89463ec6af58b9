import { expect, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import en from '../messages/en/hosted.json' with { type: 'json' };
import social from '../messages/en/social.json' with { type: 'json' };
import { startOidcIdp } from '../server/testing/social-idps';
import { bapi, cli, createOperatorInstance, createTestInstance, hostedSignUp, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

test('a social sign-in of an account with two-step verification asks for the second factor on the hosted pages, then lands signed in', async ({
  page,
}) => {
  const instance = createTestInstance('Social MFA');
  const idp = await startOidcIdp({
    clientId: 'latchkey',
    clientSecret: 'idp-secret',
    redirectUris: [`${instance.fapi_url}/v1/oauth_callback`],
  });
  const user = { email: uniqueEmail('erin'), password: 'radium-polonium-1898' };
  let backupCode = '';

  try {
    await test.step('the instance offers an OpenID Connect provider on loopback', async () => {
      const res = await fetch(`${E2E_BASE_URL}/v1/social_providers`, {
        method: 'POST',
        headers: { authorization: `Bearer ${instance.secret}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          kind: 'oidc',
          name: 'acme',
          display_name: 'Acme ID',
          issuer: idp.issuer,
          client_id: 'latchkey',
          client_secret: 'idp-secret',
        }),
      });
      expect(res.status).toBe(201);
    });

    await test.step('a user signs up with a password and turns on an authenticator app', async () => {
      await hostedSignUp(page, instance, user.email, user.password);

      await page.getByRole('tab', { name: en.profile.tabs.security }).click();
      await page.getByRole('button', { name: en.mfa.setUp }).click();
      const key = (await page.getByLabel(en.totp.manualKey, { exact: true }).first().textContent())!.trim();
      const totp = new TOTP({ secret: Secret.fromBase32(key), digits: 6, period: 30, algorithm: 'SHA1' });
      await page.getByLabel(en.totp.codeLabel).fill(totp.generate());
      await page.getByRole('button', { name: en.totp.enable }).click();
      const codes = page.getByRole('list', { name: en.backupCodes.listLabel });
      await expect(codes).toBeVisible();
      backupCode = (await codes.getByRole('listitem').first().textContent())!.trim();
      await page.getByRole('button', { name: en.mfa.savedCodes }).click();
      await page.getByRole('button', { name: en.profile.signOut }).first().click();
      await expect(page.getByRole('heading', { name: en.signIn.title })).toBeVisible();
    });

    await test.step('"Continue with Acme ID" goes to the provider and back to the second-factor step', async () => {
      idp.accounts.set('erin', { email: user.email, email_verified: true });
      idp.loginAs = 'erin';
      await page.getByRole('button', { name: social.continueWith.replace('{provider}', 'Acme ID') }).click();
      await expect(page.getByRole('heading', { name: en.factorTwo.title })).toBeVisible();
      expect(new URL(page.url()).pathname).toMatch(/\/sign-in\/factor-two$/);
    });

    await test.step('a backup code finishes the sign-in', async () => {
      await page.getByRole('button', { name: en.factorTwo.useBackup }).click();
      await page.getByLabel(en.factorTwo.backupLabel).fill(backupCode);
      await page.getByRole('button', { name: en.factorTwo.submit }).click();
      await expect(page.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
    });

    await test.step('the profile lists the connected Acme ID account, which the user disconnects', async () => {
      const account = page.getByRole('listitem', { name: 'Acme ID', exact: true });
      await expect(account).toContainText(user.email);
      await account.getByRole('button', { name: en.account.disconnect }).click();
      await page.getByRole('dialog').getByRole('button', { name: en.account.disconnect }).click();
      await expect(page.getByRole('heading', { name: en.account.connectedTitle })).toHaveCount(0);
    });
  } finally {
    await idp.close();
  }
});

test('the mock provider of a test instance: the operator adds it in the console, an end user signs in with it without any credentials', async ({
  page,
  browser,
}) => {
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Mo',
    email: uniqueEmail('mock-owner'),
    password: 'mock turtles all the way',
    accountName: 'Mock Co',
    instanceName: 'Mocked',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const email = uniqueEmail('mona');

  await test.step('Social sign-in → Add provider → "Mock provider (test instances only)": no client id or secret asked', async () => {
    await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/social`);
    await page.getByRole('button', { name: social.console.add }).click();
    const dialog = page.getByRole('dialog', { name: social.console.addTitle });
    await dialog.getByLabel(social.console.kind).selectOption('mock');
    await expect(dialog.getByText(social.console.mockHint)).toBeVisible();
    await expect(dialog.getByLabel(social.console.clientId)).toHaveCount(0);
    await dialog.getByRole('button', { name: social.console.add }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByRole('cell', { name: 'oauth_mock' })).toBeVisible();
  });

  await test.step('the hosted sign-in offers it; its page (served by Latchkey) names the person; the profile opens signed in', async () => {
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-in`);
    await visitor.getByRole('button', { name: social.continueWith.replace('{provider}', 'Mock provider') }).click();
    await expect(visitor.getByRole('heading', { name: 'Mock provider' })).toBeVisible();
    await visitor.getByLabel('Email address').fill(email);
    await visitor.getByLabel('First name').fill('Mona');
    await visitor.getByRole('button', { name: 'Continue' }).click();
    await expect(visitor.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
    await visitor.context().close();
    const users = await bapi<{ data: Array<{ first_name: string; email_addresses: Array<{ verification: { strategy: string } }> }> }>(
      secret,
      'GET',
      `/v1/users?email_address=${encodeURIComponent(email)}`,
    );
    expect(users.data[0]).toMatchObject({ first_name: 'Mona', email_addresses: [{ verification: { strategy: 'oauth_mock' } }] });
  });
});
