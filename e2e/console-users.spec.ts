import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import en from '../messages/en/console.json' with { type: 'json' };
import protection from '../messages/en/protection.json' with { type: 'json' };
import { bapi, cli, createOperatorAccount, createOperatorInstance, readmeScreenshot, screenshot, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const tu = en.users;

/** Fails on any WCAG 2.1 A/AA violation axe-core finds on the page as it is now. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test('users list: create a user, filter, sort, choose columns, keep it all in the URL, export CSV', async ({ page }) => {
  const accountId = await createOperatorAccount(page, {
    firstName: 'Uma',
    email: uniqueEmail('users-owner'),
    password: 'many users here',
    accountName: 'Users Co',
  });
  const instance = cli<{ instance_id: string }>('instance', 'create', '--name', 'Crowd', '--env', 'test', '--account', accountId);
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  for (const [first, email] of [
    ['Zoe', 'zoe@crowd.test'],
    ['Bob', 'bob@crowd.test'],
  ]) {
    const res = await fetch(`${E2E_BASE_URL}/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ first_name: first, email_address: [email] }),
    });
    expect(res.ok).toBe(true);
  }
  const list = `/accounts/${accountId}/instances/${instance.instance_id}/users`;
  await page.goto(list);
  const table = page.getByRole('table', { name: tu.title });

  await test.step('an operator creates a user from the console; a bad phone is flagged when left', async () => {
    await page.getByRole('button', { name: tu.create }).click();
    const dialog = page.getByRole('dialog', { name: en.createUser.title });
    await dialog.getByLabel(en.createUser.firstName).fill('Ada');
    await dialog.getByLabel(en.createUser.phone).fill('12345');
    await dialog.getByLabel(en.createUser.phone).blur();
    await expect(dialog.getByText(en.createUser.invalid.phone_number)).toBeVisible();
    await dialog.getByLabel(en.createUser.phone).fill('+14155550123');
    await dialog.getByLabel(en.createUser.email).fill('ada@crowd.test');
    await dialog.getByLabel(en.createUser.password).fill('analytical engine');
    await dialog.getByRole('button', { name: en.createUser.submit }).click();
    await expect(page.getByRole('heading', { name: 'Ada', level: 1 })).toBeVisible();
    await page.goto(list);
  });

  await test.step('sort by name, filter, and the URL keeps it through a reload', async () => {
    await page.getByLabel(tu.sort).selectOption('name');
    await expect(table.locator('tbody tr').first()).toContainText('Ada');
    await expect(table.locator('tbody tr').last()).toContainText('Zoe');
    await expect(page).toHaveURL(/order_by=name/);
    await page.getByRole('searchbox', { name: tu.search }).fill('crowd.test');
    await expect(page).toHaveURL(/query=crowd.test/);
    // The eight filters fold behind one button; a filtering URL opens them again.
    await expect(page.getByLabel(tu.flags.banned)).toHaveCount(0);
    await page.getByRole('button', { name: tu.filtersButton, exact: true }).click();
    await page.getByLabel(tu.flags.banned).selectOption('true');
    await expect(page.getByRole('button', { name: tu.filtersCount.replace('{count}', '1') })).toHaveAttribute('aria-expanded', 'true');
    await expect(page.getByText(tu.noMatchesFiltered)).toBeVisible();
    await page.reload();
    await expect(page.getByLabel(tu.flags.banned)).toHaveValue('true');
    await expect(page.getByRole('searchbox', { name: tu.search })).toHaveValue('crowd.test');
    await page.getByRole('button', { name: tu.clear }).click();
    await expect(table.locator('tbody tr')).toHaveCount(3);
  });

  await test.step('columns: the phone column is added and remembered', async () => {
    await page.getByText(tu.columns, { exact: true }).click();
    await page.getByLabel(tu.columnNames.phone).check();
    await expect(table.getByRole('columnheader', { name: tu.columnNames.phone })).toBeVisible();
    await expect(table).toContainText('+14155550123');
    await page.reload();
    await expect(table.getByRole('columnheader', { name: tu.columnNames.phone })).toBeVisible();
    await screenshot(page, 'console-users-list');
    await readmeScreenshot(page, 'console-users-list');
  });

  await test.step('export: the filtered list as CSV', async () => {
    await page.getByRole('searchbox', { name: tu.search }).fill('zoe');
    await expect(table.locator('tbody tr')).toHaveCount(1);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: tu.export }).click();
    const file = await download;
    const path = await file.path();
    const csv = (await import('node:fs')).readFileSync(path, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^id,first_name,last_name/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('zoe@crowd.test');
  });

  await test.step('on a phone the page fits the screen, filters open or not', async () => {
    await page.setViewportSize({ width: 375, height: 812 });
    const overflow = () => page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(await overflow()).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: tu.filtersButton, exact: true }).click();
    await expect(page.getByLabel(tu.ranges.created_after)).toBeVisible();
    expect(await overflow()).toBeLessThanOrEqual(0);
    await screenshot(page, 'console-users-phone');
    await page.setViewportSize({ width: 1280, height: 720 });
  });
});

test('the user page: profile, contact details, password, two-step, lock, sessions, organizations, tokens and keys; every table refreshes', async ({
  page,
}) => {
  test.setTimeout(180_000);
  const tp = en.user;
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Ivy',
    email: uniqueEmail('user-page-owner'),
    password: 'one user at a time',
    accountName: 'User Page Co',
    instanceName: 'Profiles',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const password = 'first long passphrase';
  const user = await bapi<{ id: string }>(secret, 'POST', '/v1/users', {
    first_name: 'Grace',
    email_address: ['grace@profiles.test'],
    password,
  });

  // The user signs in as a native app would, turns on TOTP and mints a personal access token.
  const fapi = async (method: string, path: string, token: string | null, body?: unknown) => {
    const response = await fetch(`${instance.fapi_url}${path}${token ? '' : '?_is_native=1'}`, {
      method,
      headers: {
        'x-publishable-key': instance.publishable_key,
        'content-type': 'application/json',
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.ok, `${method} ${path}: ${response.status} ${await response.clone().text()}`).toBe(true);
    return {
      token: response.headers.get('authorization')?.replace(/^Bearer /, '') ?? token,
      body: (await response.json()) as Record<string, unknown>,
    };
  };
  const signedIn = await fapi('POST', '/v1/client/sign_ins', null, { identifier: 'grace@profiles.test', password });
  const token = signedIn.token!;
  const totp = await fapi('POST', '/v1/me/totp', token);
  const code = new TOTP({ secret: Secret.fromBase32(String(totp.body.secret)), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
  await fapi('POST', '/v1/me/totp/attempt_verification', token, { code });
  await fapi('POST', '/v1/client/me/api_tokens', token, { name: 'Laptop CLI', scopes: ['me:read'] });
  const org = await bapi<{ id: string }>(secret, 'POST', '/v1/organizations', { name: 'Analytical Engines', created_by: user.id });
  await bapi(secret, 'POST', '/v1/api_keys', { subject: user.id, name: 'Reporting job' });

  await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/users/${user.id}`);
  await expect(page.getByRole('heading', { name: 'Grace', level: 1 })).toBeVisible();
  const sessions = page.getByRole('table', { name: tp.sessionsTitle });
  const orgs = page.getByRole('table', { name: tp.orgsTitle });
  const tokens = page.getByRole('table', { name: tp.tokensTitle });
  const keys = page.getByRole('table', { name: tp.apiKeysTitle });

  await test.step('every card is filled and the page passes an axe-core WCAG 2.1 AA scan', async () => {
    await expect(sessions.getByText(tp.sessionStatus.active, { exact: true })).toBeVisible();
    await expect(orgs.getByRole('link', { name: 'Analytical Engines' })).toHaveAttribute('href', new RegExp(`/organizations/${org.id}$`));
    await expect(orgs).toContainText('Admin');
    await expect(tokens).toContainText('Laptop CLI');
    await expect(keys).toContainText('Reporting job');
    await expect(page.getByText(tp.twoStepOn, { exact: true })).toBeVisible();
    await expectAccessible(page);
  });

  await test.step('edit names and username', async () => {
    await page.getByRole('button', { name: tp.editProfile, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: tp.editProfileTitle });
    await dialog.getByLabel(tp.lastName).fill('Hopper');
    await dialog.getByLabel(tp.username).fill('amazing_grace');
    await dialog.getByRole('button', { name: tp.save }).click();
    await expect(page.getByRole('heading', { name: 'Grace Hopper', level: 1 })).toBeVisible();
    await expect(page.getByText('amazing_grace')).toBeVisible();
  });

  await test.step('add an address unverified, verify it, make it primary, remove the old one; add a verified phone', async () => {
    await page.getByRole('button', { name: tp.addEmail }).click();
    const dialog = page.getByRole('dialog', { name: tp.addEmailTitle });
    await dialog.getByLabel(tp.emailLabel).fill('not-an-address');
    await dialog.getByLabel(tp.emailLabel).blur();
    await expect(dialog.getByText(tp.invalidEmail)).toBeVisible();
    await expectAccessible(page);
    await dialog.getByLabel(tp.emailLabel).fill('grace@navy.test');
    await dialog.getByLabel(tp.markVerified).uncheck();
    await dialog.getByRole('button', { name: tp.add, exact: true }).click();
    const contact = page.getByRole('region', { name: tp.emails, exact: true });
    const added = contact.getByRole('listitem').filter({ hasText: 'grace@navy.test' });
    await expect(added).toContainText(tp.unverified);
    await added.getByRole('button', { name: tp.verifyItem.replace('{value}', 'grace@navy.test') }).click();
    await expect(added).toContainText(tp.verified);
    await added.getByRole('button', { name: tp.makePrimaryItem.replace('{value}', 'grace@navy.test') }).click();
    await expect(added).toContainText(tp.primary);
    await contact.getByRole('button', { name: tp.removeItem.replace('{value}', 'grace@profiles.test') }).click();
    await page
      .getByRole('dialog', { name: tp.removeIdentifierTitle.replace('{value}', 'grace@profiles.test') })
      .getByRole('button', { name: tp.remove })
      .click();
    await expect(contact.getByText('grace@profiles.test')).toHaveCount(0);

    await page.getByRole('button', { name: tp.addPhone }).click();
    const phoneDialog = page.getByRole('dialog', { name: tp.addPhoneTitle });
    await phoneDialog.getByLabel(tp.phoneLabel).fill('+14155550142');
    await phoneDialog.getByRole('button', { name: tp.add, exact: true }).click();
    const phone = page.getByRole('region', { name: tp.phones, exact: true }).getByRole('listitem').filter({ hasText: '+14155550142' });
    await expect(phone).toContainText(tp.verified);
    await expect(phone).toContainText(tp.primary);
  });

  await test.step('a ban revokes the sessions and the table says so without a reload; unban', async () => {
    await page.getByRole('button', { name: tp.ban, exact: true }).click();
    await page.getByRole('dialog', { name: tp.banTitle }).getByRole('button', { name: tp.ban, exact: true }).click();
    await expect(sessions.getByText(tp.sessionStatus.revoked, { exact: true })).toBeVisible();
    await expect(sessions.getByText(tp.sessionStatus.active, { exact: true })).toHaveCount(0);
    // The ban also revoked the user's API key: that table refreshed too.
    await expect(page.getByText(tp.noApiKeysTitle)).toBeVisible();
    await page.getByRole('button', { name: tp.unban }).click();
    await expect(page.getByRole('button', { name: tp.ban, exact: true })).toBeVisible();
  });

  await test.step('reset the password, signing out everywhere', async () => {
    await page.getByRole('button', { name: tp.resetPassword }).click();
    const dialog = page.getByRole('dialog', { name: tp.passwordTitle });
    await dialog.getByLabel(tp.newPassword).fill('a brand new passphrase');
    await dialog.getByLabel(tp.signOutEverywhere).check();
    await dialog.getByRole('button', { name: tp.savePassword }).click();
    await expect(page.getByText(tp.passwordSavedSignedOut)).toBeVisible();
  });

  await test.step('turn off two-step verification', async () => {
    await page.getByRole('button', { name: tp.disableMfa }).click();
    await page.getByRole('dialog', { name: tp.disableMfaTitle }).getByRole('button', { name: tp.disableMfa }).click();
    await expect(page.getByText(tp.twoStepOff, { exact: true })).toBeVisible();
    await expect(page.getByRole('button', { name: tp.disableMfa })).toHaveCount(0);
  });

  await test.step('lock, then unlock', async () => {
    await page.getByRole('button', { name: tp.lock, exact: true }).click();
    await page.getByRole('dialog', { name: tp.lockTitle }).getByRole('button', { name: tp.lock, exact: true }).click();
    await expect(page.getByText(tp.lockedForever)).toBeVisible();
    await expect(page.getByRole('heading', { level: 1 })).toContainText(tp.locked);
    await page.getByRole('button', { name: protection.unlock }).click();
    await expect(page.getByText(tp.notLocked)).toBeVisible();
  });

  await test.step('revoke the personal access token', async () => {
    await tokens.getByRole('button', { name: tp.revokeToken.replace('{name}', 'Laptop CLI') }).click();
    await page.getByRole('dialog', { name: tp.revokeTokenTitle }).getByRole('button', { name: tp.revoke }).click();
    await expect(page.getByText(tp.noTokensTitle)).toBeVisible();
    await screenshot(page, 'console-user-page');
  });

  await test.step('impersonation asks first, saying how long the link works; cancelled, nothing is made', async () => {
    await page.getByRole('button', { name: tp.impersonate, exact: true }).click();
    const confirm = page.getByRole('dialog', { name: /^Sign in as / });
    await expect(confirm).toContainText(tp.impersonateConfirm.replace('{minutes}', '60'));
    await confirm.getByRole('button', { name: 'Cancel', exact: true }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await page.getByRole('button', { name: tp.impersonate, exact: true }).click();
    await readmeScreenshot(page, 'console-impersonation-confirm');
    await page
      .getByRole('dialog', { name: /^Sign in as / })
      .getByRole('button', { name: tp.impersonateConfirmButton })
      .click();
    const link = page.getByRole('dialog', { name: tp.impersonateTitle });
    await expect(link).toContainText(tp.impersonateExpires.replace(' {time}.', ''));
    await link.getByRole('button', { name: tp.done }).click();
  });
});
