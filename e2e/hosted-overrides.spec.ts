import { expect, test } from '@playwright/test';
import enHosted from '../messages/en/hosted.json' with { type: 'json' };
import en from '../messages/en/templates.json' with { type: 'json' };
import frCommon from '../messages/fr/common.json' with { type: 'json' };
import fr from '../messages/fr/hosted.json' with { type: 'json' };
import { cli, createOperatorAccount, screenshot, uniqueEmail } from './support/helpers';

const operator = { email: uniqueEmail('overrides-owner'), password: 'copy that converts' };
const heading = 'Rejoignez la Boutique';

test('an operator overrides a French hosted-page title; the French sign-up page shows it', async ({ browser }) => {
  const consoleContext = await browser.newContext();
  const page = await consoleContext.newPage();
  let accountId = '';
  let instance = { instance_id: '', fapi_url: '' };

  await test.step('an operator of their own account and a test instance', async () => {
    accountId = await createOperatorAccount(page, {
      firstName: 'Odile',
      email: operator.email,
      password: operator.password,
      accountName: 'Boutique SARL',
    });
    instance = cli<{ instance_id: string; fapi_url: string }>(
      'instance',
      'create',
      '--name',
      'Boutique',
      '--env',
      'test',
      '--account',
      accountId,
    );
  });

  await test.step('the localizations page overrides the French sign-up title', async () => {
    await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/localizations`);
    await expect(page.getByRole('heading', { name: en.localizations.title })).toBeVisible();
    await page.getByLabel(en.localizations.language).selectOption('fr');
    await page.getByLabel(en.localizations.resource).selectOption('hosted.signUp.title');
    await page.getByLabel(en.localizations.fields.text, { exact: true }).fill(heading);
    await page.getByRole('button', { name: en.localizations.save }).click();
    await expect(page.getByText(en.localizations.saved, { exact: true })).toBeVisible();
  });

  const userContext = await browser.newContext({ locale: 'fr-FR', extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9' } });
  const hosted = await userContext.newPage();

  await test.step('a French visitor sees the overridden heading, the rest of the page in built-in French', async () => {
    await hosted.goto(`${instance.fapi_url}/sign-up`);
    await expect(hosted.getByRole('heading', { name: heading })).toBeVisible();
    await expect(hosted.getByRole('heading', { name: fr.signUp.title })).toHaveCount(0);
    await expect(hosted.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(hosted.getByLabel(fr.fields.email)).toBeVisible();
    await expect(hosted.getByRole('button', { name: fr.signUp.submit })).toBeVisible();
    await screenshot(hosted, 'hosted-fr-sign-up-override');
  });

  await test.step('the language picker still switches to the built-in English copy', async () => {
    await hosted.getByLabel(frCommon.language).selectOption('en');
    await expect(hosted).toHaveURL(/[?&]locale=en/);
    await expect(hosted.getByRole('heading', { name: enHosted.signUp.title })).toBeVisible();
    await expect(hosted.locator('html')).toHaveAttribute('lang', 'en');
  });

  await userContext.close();
  await consoleContext.close();
});
