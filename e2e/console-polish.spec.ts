import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import common from '../messages/en/common.json' with { type: 'json' };
import { cli, createOperatorAccount, uniqueEmail } from './support/helpers';

/** Fails on any WCAG 2.1 A/AA violation axe-core finds on the page as it is now. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test('the account page: an invitation link to copy, no Remove for the last owner, an icon, a theme toggle', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  const missing: string[] = [];
  page.on('response', (r) => {
    if (r.status() === 404) missing.push(r.url());
  });

  const accountId = await createOperatorAccount(page, {
    firstName: 'Polly',
    email: uniqueEmail('polish-owner'),
    password: 'polished to a shine',
    accountName: 'Polish Ltd',
  });

  await test.step('the only owner is not offered Remove', async () => {
    const members = page.getByRole('table', { name: en.account.membersTitle });
    await expect(members.getByRole('row', { name: /Polly/ })).toContainText(en.account.lastOwner);
    await expect(members.getByRole('button', { name: en.account.remove })).toHaveCount(0);
  });

  await test.step('an invitation answers its accept link to copy (no mail needed)', async () => {
    const invitee = uniqueEmail('polish-invitee');
    await page.getByLabel(en.account.inviteEmail).fill(invitee);
    await page.getByRole('button', { name: en.account.invite }).click();
    const link = page.getByLabel(en.account.invitationLink, { exact: true });
    await expect(link).toContainText('/accept-invitation?token=inv_');
    await expect(page.getByRole('button', { name: new RegExp(en.account.invitationLink) })).toBeVisible();
  });

  await test.step('the page has an icon and no missing resource', async () => {
    await expect(page.locator('link[rel="icon"]')).toHaveAttribute('href', /icon\.svg/);
    expect(missing).toEqual([]);
  });

  await test.step('the theme toggle switches to light, then dark, and the choice survives a reload', async () => {
    const toggle = () => page.getByRole('button', { name: new RegExp(common.theme.label.replace('{theme}', '')) });
    await expect(toggle()).toHaveAccessibleName(common.theme.label.replace('{theme}', common.theme.system));
    await toggle().click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'light');
    await toggle().click();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    await page.reload();
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe(background);
    await expect(toggle()).toHaveAccessibleName(common.theme.label.replace('{theme}', common.theme.dark));
  });

  await test.step('the account page passes an axe-core WCAG 2.1 AA scan, light and dark', async () => {
    await expectAccessible(page);
    await page.getByRole('button', { name: new RegExp(common.theme.label.replace('{theme}', '')) }).click(); // system
    await page.getByRole('button', { name: new RegExp(common.theme.label.replace('{theme}', '')) }).click(); // light
    await expectAccessible(page);
  });

  await test.step('the owner renames the account, renames an instance, then deletes it after typing its name', async () => {
    await page.getByLabel(en.account.name, { exact: true }).fill('Polish Holdings');
    await page.getByRole('button', { name: en.rename.save }).click();
    await expect(page.getByText(en.rename.saved)).toBeVisible();
    await page.reload();
    await expect(page.getByRole('heading', { name: 'Polish Holdings', level: 1 })).toBeVisible();

    const { instance_id: instanceId } = cli<{ instance_id: string }>(
      'instance',
      'create',
      '--name',
      'Scratch',
      '--env',
      'test',
      '--account',
      accountId,
    );
    // The overview: activity figures over a chosen period, charts, the getting-started checklist; AA in both themes.
    await page.goto(`/accounts/${accountId}/instances/${instanceId}`);
    await expect(page.getByText(en.metrics.totalUsers)).toBeVisible();
    await page.getByLabel(en.metrics.period).selectOption('7');
    await expect(page.getByRole('table', { name: en.metrics.signUpsChart, includeHidden: true }).locator('tbody tr')).toHaveCount(7);
    await expect(page.getByRole('region', { name: en.metrics.checklistTitle })).toContainText(en.metrics.checklist.first_user);
    await expectAccessible(page);
    await page.goto(`/accounts/${accountId}/instances/${instanceId}/settings`);
    const name = page.getByLabel(en.instanceGeneral.name, { exact: true });
    await name.fill('');
    await name.blur();
    await expect(page.getByText(en.rename.required)).toBeVisible();
    await name.fill('Scratch pad');
    await page.locator('form').filter({ has: name }).getByRole('button', { name: en.rename.save }).click();
    await expect(page.getByText(en.rename.saved)).toBeVisible();
    await expect(
      page
        .getByRole('navigation')
        .getByRole('link', { name: /Scratch pad/ })
        .first(),
    ).toBeVisible();

    await page.getByRole('navigation', { name: en.settingsNav.label }).getByRole('link', { name: en.settingsNav.danger }).click();
    await page.getByRole('button', { name: en.instanceGeneral.delete }).click();
    const dialog = page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: en.instanceGeneral.delete });
    await expect(confirm).toBeDisabled();
    await dialog.getByRole('textbox').fill('Scratch pad');
    await confirm.click();
    await expect(page).toHaveURL(new RegExp(`/accounts/${accountId}$`));
    await expect(page.getByRole('link', { name: /Scratch pad/ })).toHaveCount(0);
  });
});
