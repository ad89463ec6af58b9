import { expect, test } from '@playwright/test';
import fr from '../messages/fr/hosted.json' with { type: 'json' };
import { createTestInstance, latestEmail, screenshot, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

test.use({ locale: 'fr-FR', extraHTTPHeaders: { 'accept-language': 'fr-FR,fr;q=0.9' } });

test('the hosted pages speak French, from Accept-Language and from ?locale=', async ({ page }) => {
  const instance = createTestInstance('Boutique');
  const user = { email: uniqueEmail('marie'), password: 'radium-polonium-1898' };

  await test.step('sign-up follows Accept-Language', async () => {
    await page.goto(`${instance.fapi_url}/sign-up`);
    await expect(page.locator('html')).toHaveAttribute('lang', 'fr');
    await expect(page.getByRole('heading', { name: fr.signUp.title })).toBeVisible();
    await screenshot(page, 'hosted-fr-sign-up');
    await page.getByLabel(fr.fields.email).fill(user.email);
    await page.getByLabel(fr.fields.password, { exact: true }).fill('court');
    await page.getByRole('button', { name: fr.signUp.submit }).click();
    await expect(page.getByText(fr.errors.passwordTooShort.replace('{min}', '8'))).toBeVisible();
    await page.getByLabel(fr.fields.password, { exact: true }).fill(user.password);
    await page.getByRole('button', { name: fr.signUp.submit }).click();
  });

  await test.step('the emailed code verifies the address', async () => {
    await expect(page.getByLabel(fr.code.label)).toBeVisible();
    await screenshot(page, 'hosted-fr-verify');
    await page.getByLabel(fr.code.label).fill('000000');
    await page.getByRole('button', { name: fr.signUp.verifySubmit }).click();
    await expect(page.getByText(/incorrect/i)).toBeVisible();
    const email = await latestEmail(instance.secret, user.email);
    expect(email.locale).toBe('fr');
    await page.getByLabel(fr.code.label).fill(email.data.code as string);
    await page.getByRole('button', { name: fr.signUp.verifySubmit }).click();
    await expect(page.getByRole('heading', { name: fr.profile.title })).toBeVisible();
    await screenshot(page, 'hosted-fr-profile');
    // The page's language became the user's, for the emails that follow.
    const users = (await (
      await fetch(`${E2E_BASE_URL}/v1/users?query=${encodeURIComponent(user.email)}`, {
        headers: { authorization: `Bearer ${instance.secret}` },
      })
    ).json()) as { data: Array<{ locale: string | null }> };
    expect(users.data[0]?.locale).toBe('fr');
  });

  await test.step('the profile sets up two-step verification with a QR code', async () => {
    await page.getByRole('tab', { name: fr.profile.tabs.security }).click();
    await page.getByRole('button', { name: fr.mfa.setUp }).click();
    await expect(page.getByRole('img', { name: fr.totp.qrAlt })).toBeVisible();
    await screenshot(page, 'hosted-fr-mfa-setup');
    await page.getByRole('button', { name: fr.totp.cancel }).click();
  });

  await test.step('sign-out, then sign-in and forgot-password in French', async () => {
    await page.getByRole('button', { name: fr.profile.signOut }).first().click();
    await expect(page.getByRole('heading', { name: fr.signIn.title })).toBeVisible();
    await screenshot(page, 'hosted-fr-sign-in');
    await page.getByLabel(fr.fields.identifier).fill(user.email);
    await page.getByLabel(fr.fields.password, { exact: true }).fill('pas le bon');
    await page.getByRole('button', { name: fr.signIn.submit, exact: true }).click();
    await expect(page.getByText(fr.errors.credentialsInvalid)).toBeVisible();
    await page.getByRole('link', { name: fr.signIn.forgotPassword }).click();
    await expect(page.getByRole('heading', { name: fr.forgotPassword.title })).toBeVisible();
    await screenshot(page, 'hosted-fr-forgot-password');
  });
});

test('?locale= wins over Accept-Language', async ({ page }) => {
  const instance = createTestInstance('Laden');
  const de = (await import('../messages/de/hosted.json', { with: { type: 'json' } })).default;
  await page.goto(`${instance.fapi_url}/sign-in?locale=de`);
  await expect(page.locator('html')).toHaveAttribute('lang', 'de');
  await expect(page.getByRole('heading', { name: de.signIn.title })).toBeVisible();
  await page.getByRole('link', { name: de.signIn.signUpLink }).click();
  await expect(page).toHaveURL(/locale=de/);
  await expect(page.getByRole('heading', { name: de.signUp.title })).toBeVisible();
  await screenshot(page, 'hosted-de-sign-up');
});
