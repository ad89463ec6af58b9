import { expect, test, type Page } from '@playwright/test';
import { latestCode, screenshot, uniqueEmail } from './support/helpers';
import { runState } from './support/server';

const operator = { email: 'owner@example.com', password: 'correct horse battery staple' };
const endUser = { email: uniqueEmail('ada'), password: 'analytical-engine-1843' };

/** The hosted sign-in form of any instance (the console's own sign-in is the platform instance's). */
async function signInOnHostedPage(page: Page, email: string, password: string) {
  await page.getByLabel('Email address or username').fill(email);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

test('first run to a revoked end-user session', async ({ browser }) => {
  const operatorContext = await browser.newContext();
  const consolePage = await operatorContext.newPage();

  await test.step('the one-time setup link creates the first owner', async () => {
    await consolePage.goto(runState().setupUrl);
    await expect(consolePage.getByRole('heading', { name: 'Set up Latchkey' })).toBeVisible();
    await screenshot(consolePage, 'console-setup');
    await consolePage.getByLabel('First name').fill('Grace');
    await consolePage.getByLabel('Last name').fill('Hopper');
    await consolePage.getByLabel('Email address').fill(operator.email);
    await consolePage.getByLabel('Password', { exact: true }).fill(operator.password);
    await consolePage.getByLabel('Account name').fill('Acme');
    await consolePage.getByRole('button', { name: 'Create operator account' }).click();
    // A new operator lands on the overview of the Development (test) instance made at first start.
    await expect(consolePage).toHaveURL(/\/accounts\/acct_[^/]+\/instances\/ins_/);
    await expect(consolePage.getByRole('heading', { name: 'Development', level: 1 })).toBeVisible();
    await expect(consolePage.getByText('No data yet for this period.').first()).toBeVisible();
  });

  await test.step('the operator signs out and signs in through the platform instance', async () => {
    await consolePage.getByRole('button', { name: 'Sign out' }).first().click();
    await expect(consolePage).toHaveURL(/\/fapi\/ins_[^/]+\/sign-in/, { timeout: 30_000 });
    // The console's own sign-in stays Latchkey's (an instance's hosted pages carry its application name).
    await expect(consolePage).toHaveTitle('Sign in · Latchkey');
    await screenshot(consolePage, 'console-sign-in');
    await signInOnHostedPage(consolePage, operator.email, 'wrong password');
    await expect(consolePage.getByText('The email address, username or password is incorrect.')).toBeVisible();
    await signInOnHostedPage(consolePage, operator.email, operator.password);
    await expect(consolePage).toHaveURL(/\/accounts\/acct_/);
  });

  let secret = '';
  let fapiUrl = '';
  await test.step('the operator creates a test instance and a secret key', async () => {
    await consolePage.getByRole('button', { name: 'Create instance' }).first().click();
    const dialog = consolePage.getByRole('dialog');
    await dialog.getByLabel('Instance name').fill('Shop (test)');
    await dialog.getByRole('radio', { name: /Test/ }).check();
    await dialog.getByRole('button', { name: 'Create', exact: true }).click();
    await expect(consolePage).toHaveURL(/\/instances\/ins_/);
    await expect(consolePage.getByRole('heading', { name: 'Shop (test)' })).toBeVisible();
    fapiUrl = (await consolePage.getByLabel('Frontend API URL', { exact: true }).textContent())!.trim();
    expect(fapiUrl).toMatch(/\/fapi\/ins_/);
    await screenshot(consolePage, 'console-instance');

    await consolePage.getByRole('button', { name: 'Create secret key' }).first().click();
    const keyDialog = consolePage.getByRole('dialog');
    await keyDialog.getByLabel('Name').fill('e2e outbox reader');
    await keyDialog.getByRole('button', { name: 'Create key' }).click();
    const secretField = consolePage.getByRole('dialog').getByLabel('Secret key', { exact: true });
    await expect(secretField).toHaveText(/^sk_test_/);
    secret = (await secretField.textContent())!.trim();
    await screenshot(consolePage, 'console-secret-key');
    await consolePage.getByRole('button', { name: 'I have copied it' }).click();
    await expect(consolePage.getByRole('cell', { name: 'e2e outbox reader', exact: true })).toBeVisible();
  });

  const userContext = await browser.newContext();
  const hosted = await userContext.newPage();
  await test.step('an end user signs up on the hosted page with the emailed code', async () => {
    await hosted.goto(`${fapiUrl}/sign-up`);
    await expect(hosted.getByRole('heading', { name: 'Create your account' })).toBeVisible();
    await screenshot(hosted, 'hosted-sign-up');
    await hosted.getByLabel('Email address').fill(endUser.email);
    await hosted.getByLabel('Password', { exact: true }).fill(endUser.password);
    await hosted.getByRole('button', { name: 'Continue' }).click();
    await expect(hosted.getByLabel('Verification code')).toBeVisible();
    await screenshot(hosted, 'hosted-sign-up-verify');
    const code = await latestCode(secret, endUser.email);
    await hosted.getByLabel('Verification code').fill(code);
    await hosted.getByRole('button', { name: 'Verify and create account' }).click();
    await expect(hosted.getByRole('heading', { name: 'Your account' })).toBeVisible();
    await screenshot(hosted, 'hosted-profile');
  });

  const sessionId = await hosted.evaluate(async (fapi) => {
    const env = (await (await fetch(`${fapi}/v1/environment`)).json()) as {
      publishable_key?: string;
      instance?: { publishable_key?: string };
    };
    const pk = env.publishable_key ?? env.instance?.publishable_key ?? '';
    const client = (await (await fetch(`${fapi}/v1/client`, { headers: { 'x-publishable-key': pk } })).json()) as {
      last_active_session_id: string;
    };
    return client.last_active_session_id;
  }, fapiUrl);
  expect(sessionId).toMatch(/^sess_/);
  const refresh = () =>
    hosted.evaluate(async ([fapi, sid]) => (await fetch(`${fapi}/v1/client/sessions/${sid}/tokens`, { method: 'POST' })).status, [
      fapiUrl,
      sessionId,
    ] as const);
  expect(await refresh()).toBe(200);

  await test.step('the operator finds the user, sees the session and revokes it', async () => {
    await consolePage.getByRole('link', { name: 'Users', exact: true }).first().click();
    await consolePage.getByLabel('Search users').fill(endUser.email);
    const row = consolePage.getByRole('link', { name: new RegExp(endUser.email.replace(/[.+]/g, '\\$&')) }).first();
    await expect(row).toBeVisible();
    await screenshot(consolePage, 'console-users');
    await row.click();
    await expect(consolePage.getByRole('heading', { name: 'Sessions' })).toBeVisible();
    await expect(consolePage.getByText(sessionId)).toBeVisible();
    await screenshot(consolePage, 'console-user');
    await consolePage.getByRole('button', { name: `Revoke session ${sessionId}` }).click();
    await consolePage.getByRole('dialog').getByRole('button', { name: 'Revoke', exact: true }).click();
    await expect(consolePage.getByRole('button', { name: `Revoke session ${sessionId}` })).toHaveCount(0);
  });

  await test.step("the end user's next token refresh fails", async () => {
    expect(await refresh()).toBe(401);
    await hosted.reload();
    await expect(hosted).toHaveURL(/\/sign-in/);
  });

  await test.step('the audit log and the outbox show what happened', async () => {
    await consolePage.getByRole('link', { name: 'Audit log' }).first().click();
    await expect(consolePage.getByRole('cell', { name: /session/i }).first()).toBeVisible();
    await screenshot(consolePage, 'console-audit');
    await consolePage.getByRole('link', { name: 'Outbox' }).first().click();
    await expect(consolePage.getByText(endUser.email).first()).toBeVisible();
    await screenshot(consolePage, 'console-outbox');
    await consolePage.getByRole('link', { name: 'Settings' }).first().click();
    await expect(consolePage.getByRole('heading', { name: 'General', level: 1 })).toBeVisible();
    await screenshot(consolePage, 'console-settings');
    await consolePage.getByLabel('Default language').selectOption('fr');
    await consolePage.getByRole('button', { name: 'Save changes' }).click();
    await expect(consolePage.getByText('Changes saved.')).toBeVisible();
    await consolePage.reload();
    await expect(consolePage.getByLabel('Default language')).toHaveValue('fr');
  });

  await test.step('the console works on a phone', async () => {
    await consolePage.setViewportSize({ width: 375, height: 812 });
    await consolePage.getByRole('button', { name: 'Menu' }).click();
    await expect(consolePage.getByRole('link', { name: 'Users', exact: true }).first()).toBeVisible();
    await screenshot(consolePage, 'console-phone-menu');
    const overflow = await consolePage.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
  });

  await userContext.close();
  await operatorContext.close();
});
