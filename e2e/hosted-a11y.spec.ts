import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import { createTestInstance, uniqueEmail } from './support/helpers';

/** Fails on any WCAG 2.1 A/AA violation axe-core finds on the page as it is now. */
async function expectAccessible(page: Page, what: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.map((v) => `${what}: ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

test('every hosted page passes an axe-core WCAG 2.1 AA scan, in light and dark mode', async ({ browser }) => {
  const instance = createTestInstance('Accessible');
  for (const colorScheme of ['light', 'dark'] as const) {
    const page = await (await browser.newContext({ colorScheme })).newPage();
    const visit = async (path: string, ready: string) => {
      await page.goto(`${instance.fapi_url}${path}`);
      await expect(page.getByRole('heading', { name: ready }).first()).toBeVisible();
      await expectAccessible(page, `${colorScheme} ${path}`);
    };
    await visit('/sign-in', en.signIn.title);
    await visit('/sign-up', en.signUp.title);
    await visit('/forgot-password', en.forgotPassword.title);
    await visit('/waitlist', 'Join the waitlist');
    await visit('/organization-invitation', en.organizationInvitation.title);

    await test.step(`${colorScheme}: the sign-up's code step, then an error shown in a form`, async () => {
      await page.goto(`${instance.fapi_url}/sign-up`);
      await page.getByLabel(en.fields.email).fill(uniqueEmail(`a11y-${colorScheme}`));
      await page.getByLabel(en.fields.password, { exact: true }).fill('an accessible passphrase');
      await page.getByRole('button', { name: en.signUp.submit, exact: true }).click();
      await expect(page.getByRole('heading', { name: en.signUp.verifyTitle })).toBeVisible();
      await expectAccessible(page, `${colorScheme} /sign-up/verify`);
      await page.goto(`${instance.fapi_url}/sign-in`);
      await page.getByLabel(en.fields.identifier).fill('nobody@example.com');
      await page.getByLabel(en.fields.password, { exact: true }).fill('wrong password');
      await page.getByRole('button', { name: en.signIn.submit, exact: true }).click();
      await expect(page.getByText(en.errors.credentialsInvalid)).toBeVisible();
      await expectAccessible(page, `${colorScheme} /sign-in with an error`);
    });
    await page.context().close();
  }
});
