import { expect, test, type Locator, type Page } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import templatesEn from '../messages/en/templates.json' with { type: 'json' };
import hostedEn from '../messages/en/hosted.json' with { type: 'json' };
import pk from '../messages/en/passkeys.json' with { type: 'json' };
import { bapi, cli, createOperatorInstance, screenshot, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL, E2E_PORT } from './support/server';

/** Issue 48's defects, each seen as a person sees it. */

/** WCAG contrast ratio of two CSS rgb() colours. */
function contrast(a: string, b: string): number {
  const lum = (css: string) => {
    const [r, g, bl] = (css.match(/[\d.]+/g) ?? [])
      .slice(0, 3)
      .map(Number)
      .map((v) => {
        const c = v / 255;
        return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
      });
    return 0.2126 * r! + 0.7152 * g! + 0.0722 * bl!;
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** Every element of each cell ends inside its cell: nothing spills over the next column. */
async function expectNothingSpills(cells: Locator) {
  const spilled = await cells.evaluateAll((tds) =>
    tds.flatMap((td) => {
      const edge = td.getBoundingClientRect().right + 1;
      return [...td.querySelectorAll('*')]
        .filter((el) => el.getBoundingClientRect().right > edge)
        .map((el) => `${el.tagName}: ${el.textContent?.slice(0, 40)}`);
    }),
  );
  expect(spilled).toEqual([]);
}

async function operatorWithInstance(page: Page, tag: string) {
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Dana',
    email: uniqueEmail(`${tag}-owner`),
    password: 'day two of the console',
    accountName: `${tag} Ltd`,
    instanceName: `${tag} app`,
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  return { accountId, ...instance, secret, base: `/accounts/${accountId}/instances/${instance.instance_id}` };
}

test('dark mode: the email template editor shows its markup light on dark', async ({ browser }) => {
  const page = await (await browser.newContext({ colorScheme: 'dark' })).newPage();
  const { base } = await operatorWithInstance(page, 'dark');
  await page.goto(`${base}/templates/verification_code`);
  const editor = page.locator('.cm-editor').first();
  await expect(editor).toBeVisible();
  const [background, text] = await editor.evaluate((el) => [
    getComputedStyle(el).backgroundColor,
    getComputedStyle(el.querySelector('.cm-line')!).color,
  ]);
  // Dark behind, and the text readable on it (AA: 4.5:1).
  expect(contrast(background, 'rgb(0, 0, 0)')).toBeLessThan(3);
  expect(contrast(background, text)).toBeGreaterThanOrEqual(4.5);
  await expect(page.getByRole('textbox', { name: templatesEn.editor.mjml, exact: true })).toBeVisible();
  await screenshot(page, 'console-template-editor-dark');
});

test('the audit log: labels for people, ids kept in their cells, details in a side panel', async ({ page }) => {
  const { base, secret } = await operatorWithInstance(page, 'audit');
  const user = await bapi<{ id: string }>(secret, 'POST', '/v1/users', {
    first_name: 'Bo',
    last_name: 'Brown',
    email_address: [uniqueEmail('bo')],
  });
  await bapi(secret, 'POST', `/v1/users/${user.id}/ban`);
  await page.setViewportSize({ width: 1100, height: 800 });
  await page.goto(`${base}/audit`);
  const table = page.getByRole('table', { name: en.audit.title });
  const banned = table.getByRole('row').filter({ hasText: 'User: banned' });
  await expect(banned).toBeVisible();
  await expect(banned).toContainText('user.banned');
  await expect(banned).toContainText('Bo Brown');
  await expectNothingSpills(table.locator('td'));

  await banned.getByRole('button', { name: `Show details of User: banned` }).click();
  const panel = page.getByRole('dialog', { name: 'User: banned' });
  await expect(panel).toBeVisible();
  await expect(panel).toContainText(user.id);
  await expect(panel).toContainText('Bo Brown');
  expect((await panel.boundingBox())!.width).toBeGreaterThan(400);
  await screenshot(page, 'console-audit-panel');
  await panel.getByRole('button', { name: 'Close' }).click();
  await expect(panel).toBeHidden();
});

test('the overview’s checklist items are links to where each step is done', async ({ browser }) => {
  const page = await (await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true })).newPage();
  const { base } = await operatorWithInstance(page, 'phone');
  await page.goto(base);
  const checklist = page.getByRole('region', { name: en.metrics.checklistTitle });
  await expect(checklist).toBeVisible();
  await page.waitForLoadState('networkidle');
  // The phone overview does not scroll sideways (a phone widens its layout to the page's width: innerWidth says so).
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect([innerWidth, scrollWidth <= innerWidth]).toEqual([390, true]);
  await checklist.getByRole('link', { name: en.metrics.checklist.webhook_endpoint }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/webhooks$`));
});

test('an unknown console page says so inside the console; a click anywhere on a users row opens the user', async ({ page }) => {
  const { base, secret } = await operatorWithInstance(page, 'frame');
  await page.goto(`${base}/no-such-page`);
  await expect(page.getByText(en.states.notFoundTitle)).toBeVisible();
  await expect(page.getByRole('complementary', { name: en.shell.sidebar })).toBeVisible();

  const email = uniqueEmail('row');
  const user = await bapi<{ id: string }>(secret, 'POST', '/v1/users', { first_name: 'Rowan', email_address: [email] });
  await page.goto(`${base}/users`);
  // The name's link stretches over the row (its ::after): a click on the last cell lands on it.
  await page.getByRole('row').filter({ hasText: 'Rowan' }).getByRole('cell').last().click({ force: true });
  await expect(page).toHaveURL(new RegExp(`/users/${user.id}$`));
});

test('passkeys on an instance reached by IP address: no banner on the hosted sign-in', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  const { accountId, instance_id: instanceId, fapi_url: fapiUrl } = await operatorWithInstance(page, 'iphost');
  await page.goto(`/accounts/${accountId}/instances/${instanceId}/settings/sign-up`);
  await page.getByLabel(pk.settings.label).check();
  await page.getByRole('button', { name: en.unsaved.save }).click();
  await expect(page.getByText(en.unsaved.saved)).toBeVisible();
  await expect
    .poll(
      async () =>
        ((await (await fetch(`${fapiUrl}/v1/environment`)).json()) as { user_settings: { first_factors: string[] } }).user_settings
          .first_factors,
      { timeout: 15_000 },
    )
    .toContain('passkey');

  // The hosted sign-in at 127.0.0.1: the browser refuses WebAuthn there; the page says nothing of it.
  const user = await (await browser.newContext()).newPage();
  const errors: string[] = [];
  user.on('pageerror', (e) => errors.push(e.message));
  await user.goto(fapiUrl.replace(`localhost:${E2E_PORT}`, `127.0.0.1:${E2E_PORT}`) + '/sign-in');
  await expect(user.getByRole('heading', { name: hostedEn.signIn.title })).toBeVisible();
  await user.waitForLoadState('networkidle');
  await user.waitForTimeout(1_000);
  // (Next's route announcer is an empty alert; a banner has text.)
  await expect(user.getByRole('alert').filter({ hasText: /\S/ })).toHaveCount(0);
  await expect(user.getByText(hostedEn.errors.generic)).toHaveCount(0);
  expect(errors).toEqual([]);

  // The console's warning beside the switch (console or Frontend API reached by an IP address) is
  // lib/ip-host.test.ts's: a console claimed at 127.0.0.1 cannot share this run's setup link.
});

test('settings: one save for the page, a sticky bar while unsaved, and leaving asks first', async ({ page }) => {
  const { base } = await operatorWithInstance(page, 'guard');
  await page.goto(`${base}/settings/sign-up`);
  const mfa = page.getByRole('checkbox', { name: en.settings.mfaRequired });
  await expect(mfa).not.toBeChecked();
  // The page's cards share one save: no button of their own.
  await expect(page.getByRole('button', { name: /^Save/ })).toHaveCount(0);
  await expect(page.getByRole('region', { name: en.settings.mfaMethods })).toContainText('Authenticator app (TOTP)');

  await mfa.check();
  const bar = page.getByRole('region', { name: en.unsaved.label });
  await expect(bar).toBeVisible();
  await expect(page.getByRole('button', { name: /^Save/ })).toHaveCount(1);
  await screenshot(page, 'console-settings-unsaved');

  // Leaving by the console's navigation asks; staying keeps the change.
  await page.getByRole('link', { name: en.nav.users, exact: true }).first().click();
  const leave = page.getByRole('dialog', { name: en.unsaved.leaveTitle });
  await expect(leave).toBeVisible();
  await leave.getByRole('button', { name: 'Cancel' }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/settings/sign-up$`));
  await expect(mfa).toBeChecked();

  // Two cards changed, one save.
  const methods = page.getByRole('group', { name: en.signInMethods.title });
  await methods.getByLabel(en.signInMethods.methods.username).uncheck();
  await bar.getByRole('button', { name: en.unsaved.save }).click();
  await expect(page.getByText(en.unsaved.saved)).toBeVisible();
  await expect(bar).toBeHidden();
  await page.reload();
  await expect(mfa).toBeChecked();
  await expect(methods.getByLabel(en.signInMethods.methods.username)).not.toBeChecked();

  // Leaving anyway drops the change.
  await mfa.uncheck();
  await page.getByRole('link', { name: en.nav.users, exact: true }).first().click();
  await page.getByRole('dialog', { name: en.unsaved.leaveTitle }).getByRole('button', { name: en.unsaved.leave }).click();
  await expect(page).toHaveURL(new RegExp(`${base}/users$`));
  await page.goto(`${base}/settings/sign-up`);
  await expect(mfa).toBeChecked();
});

test('the overview’s quickstart: a framework, this instance’s keys in the environment block, copy buttons', async ({ page }) => {
  const { base } = await operatorWithInstance(page, 'quick');
  await page.goto(base);
  await expect(page.getByRole('heading', { name: en.quickstart.title })).toBeVisible();
  const envLabel = en.quickstart.env.replace('{file}', '.env.local');
  const env = page.getByLabel(envLabel, { exact: true }).first();
  await expect(env).toContainText('NEXT_PUBLIC_LATCHKEY_PUBLISHABLE_KEY=pk_test_');
  await expect(env).toContainText(`LATCHKEY_API_URL=${E2E_BASE_URL}`);
  await expect(page.getByText(en.quickstart.secretHint)).toBeVisible();
  // Each block has its copy button.
  expect(await page.getByRole('button', { name: /Copy/ }).count()).toBeGreaterThanOrEqual(4);
  await screenshot(page, 'console-overview-quickstart');

  await page.getByRole('button', { name: en.quickstart.frameworks.express }).click();
  await expect(page.getByRole('button', { name: en.quickstart.frameworks.express })).toHaveAttribute('aria-pressed', 'true');
  await expect(page.getByLabel('server.js', { exact: true })).toContainText('latchkeyExpress');

  await page.getByRole('button', { name: en.quickstart.frameworks.clerk }).click();
  await expect(page.getByLabel(envLabel, { exact: true }).first()).toContainText('NEXT_PUBLIC_CLERK_PROXY_URL=http');
});
