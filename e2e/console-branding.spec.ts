import { expect, test } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { cli, createOperatorInstance, latestCode, screenshot, uniqueEmail } from './support/helpers';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

test('branding: the operator sets an application name, a logo, a primary colour and a support address; the hosted sign-in shows them', async ({
  page,
  browser,
}) => {
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Bea',
    email: uniqueEmail('brand-owner'),
    password: 'brand new passphrase',
    accountName: 'Brand Co',
    instanceName: 'Teal Shop',
  });
  await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/settings/branding`);
  const card = page.getByRole('region', { name: en.branding.logo });

  await test.step('a logo is uploaded and previewed', async () => {
    await card.getByLabel(en.branding.uploadLogo).setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: PNG });
    await expect(card.getByRole('img', { name: en.branding.logoPreview })).toHaveAttribute('src', /\/v1\/branding\/logo\/[0-9a-f]{16}$/);
  });

  await test.step('a colour too light for white text is flagged when left; a name, a dark teal and a support address are saved', async () => {
    await page.getByLabel(en.branding.appName).fill('Teal Store');
    const color = page.getByLabel(en.branding.color, { exact: true });
    await color.fill('#7dd3fc');
    await color.blur();
    await expect(page.getByText(en.branding.colorContrast)).toBeVisible();
    await color.fill('#0f766e');
    await color.blur();
    await expect(page.getByText(en.branding.colorContrast)).toHaveCount(0);
    await page.getByLabel(en.branding.supportEmail).fill('help@teal.example');
    // Unsaved, leaving by the console's navigation asks first; staying keeps the change.
    await page.getByRole('link', { name: en.nav.users, exact: true }).first().click();
    const leave = page.getByRole('dialog', { name: en.unsaved.leaveTitle });
    await expect(leave).toBeVisible();
    await leave.getByRole('button', { name: 'Cancel' }).click();
    await expect(page).toHaveURL(/\/settings\/branding$/);
    await expect(page.getByLabel(en.branding.appName)).toHaveValue('Teal Store');
    // The page's one save: the sticky bar's.
    await page.getByRole('region', { name: en.unsaved.label }).getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();
    await screenshot(page, 'console-branding');
  });

  await test.step('the hosted sign-in shows the application name, the logo, the colour and the support address', async () => {
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-in`);
    await expect(visitor.getByText('Teal Store', { exact: true })).toBeVisible();
    await expect(visitor).toHaveTitle(`${hosted.titles.signIn} · Teal Store`);
    await expect(visitor.getByText('Teal Shop', { exact: true })).toHaveCount(0);
    await expect(visitor.locator('main img').first()).toHaveAttribute('src', /\/v1\/branding\/logo\/[0-9a-f]{16}$/);
    await expect(visitor.getByRole('link', { name: hosted.support.replace('{email}', 'help@teal.example') })).toHaveAttribute(
      'href',
      'mailto:help@teal.example',
    );
    const background = await visitor
      .getByRole('button', { name: hosted.signIn.submit, exact: true })
      .evaluate((el) => getComputedStyle(el).backgroundColor);
    expect(background).toBe('rgb(15, 118, 110)');
    await screenshot(visitor, 'hosted-branded-sign-in');
    await visitor.context().close();
  });

  await test.step('in dark mode, the hosted profile is titled with the name and its untouched "Save changes" keeps the brand colour', async () => {
    const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
    const visitor = await (await browser.newContext()).newPage();
    await visitor.addInitScript(() => localStorage.setItem('latchkey_theme', 'dark'));
    const email = uniqueEmail('teal-visitor');
    await visitor.goto(`${instance.fapi_url}/sign-up`);
    await visitor.getByLabel(hosted.fields.email).fill(email);
    await visitor.getByLabel(hosted.fields.password, { exact: true }).fill('a teal passphrase 2026');
    await visitor.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
    await visitor.getByLabel(hosted.code.label).fill(await latestCode(secret, email));
    await visitor.getByRole('button', { name: hosted.signUp.verifySubmit }).click();
    await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible();
    await expect(visitor).toHaveTitle(`${hosted.titles.profile} · Teal Store`);
    await expect(visitor.locator('html')).toHaveAttribute('data-theme', 'dark');
    const save = visitor.getByRole('button', { name: hosted.profile.save, exact: true });
    await expect(save).toBeDisabled();
    expect(await save.evaluate((el) => getComputedStyle(el).backgroundColor)).toBe('rgb(15, 118, 110)');
    await visitor.context().close();
  });
});
