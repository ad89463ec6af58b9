import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import { createTestInstance, hostedSignUp, latestCode, readmeScreenshot, screenshot, smsCode, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const ta = en.account;

/** Fails on any WCAG 2.1 A/AA violation axe-core finds on the page as it is now. */
async function expectAccessible(page: Page) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

const row = (page: Page, address: string) => page.getByRole('listitem', { name: address, exact: true });

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');

test('the hosted account page: upload a photo, add, verify and make primary an email address, remove the old one, change the password, delete the account', async ({
  page,
}) => {
  const instance = createTestInstance('Account Portal');
  const first = uniqueEmail('nell');
  const second = uniqueEmail('nell-work');
  const passwords = { old: 'a first passphrase 2026', next: 'a second passphrase 2026' };

  await test.step('sign up on the hosted page', async () => {
    await hostedSignUp(page, instance, first, passwords.old);
    await expectAccessible(page);
  });

  await test.step('upload a profile photo, see it, remove it', async () => {
    const photo = page.getByRole('region', { name: en.profile.photo });
    // No name yet: the avatar's initial is the email address's first letter.
    await expect(photo.getByText('N', { exact: true })).toBeVisible();
    await photo.getByLabel(en.profile.uploadPhoto).setInputFiles({ name: 'me.png', mimeType: 'image/png', buffer: PNG });
    const img = photo.getByRole('img', { name: en.profile.photoAlt });
    await expect(img).toHaveAttribute('src', /\/v1\/users\/user_[^/]+\/profile_image\/[0-9a-f]{16}$/);
    await expect.poll(() => img.evaluate((el: HTMLImageElement) => el.naturalWidth)).toBe(1);
    await expectAccessible(page);
    await photo.getByRole('button', { name: en.profile.removePhoto }).click();
    await expect(img).toHaveCount(0);
  });

  await test.step('add a second address, verify it with the emailed code, make it primary, remove the first', async () => {
    await page.getByRole('button', { name: ta.email.add }).click();
    await page.getByRole('dialog').getByLabel(ta.email.label).fill(second);
    await page.getByRole('dialog').getByRole('button', { name: ta.email.addSubmit }).click();
    await expect(page.getByRole('dialog').getByRole('heading', { name: ta.email.verifyTitle })).toBeVisible();
    await page
      .getByRole('dialog')
      .getByLabel(ta.codeLabel)
      .fill(await latestCode(instance.secret, second));
    await page.getByRole('dialog').getByRole('button', { name: ta.verify }).click();
    await expect(page.getByRole('dialog')).toHaveCount(0);
    await expect(row(page, second)).toContainText(en.profile.verified);

    await row(page, second).getByRole('button', { name: ta.makePrimary }).click();
    await expect(row(page, second)).toContainText(en.profile.primary);
    await expect(row(page, first).getByRole('button', { name: ta.remove })).toBeVisible();
    await row(page, first).getByRole('button', { name: ta.remove }).click();
    await page.getByRole('dialog').getByRole('button', { name: ta.remove }).click();
    await expect(row(page, first)).toHaveCount(0);
    await expect(row(page, second).getByRole('button', { name: ta.remove })).toHaveCount(0);
    await screenshot(page, 'hosted-account-emails');
  });

  await test.step('add a phone number and verify it with the code sent by SMS', async () => {
    const phone = `+1415555${String(Date.now()).slice(-4)}`;
    await page.getByRole('button', { name: ta.phone.add }).click();
    await page.getByRole('dialog').getByLabel(ta.phone.label).fill(phone);
    await page.getByRole('dialog').getByRole('button', { name: ta.phone.addSubmit }).click();
    await expect(page.getByRole('dialog').getByRole('heading', { name: ta.phone.verifyTitle })).toBeVisible();
    await page
      .getByRole('dialog')
      .getByLabel(ta.codeLabel)
      .fill(await smsCode(instance.secret, phone));
    await page.getByRole('dialog').getByRole('button', { name: ta.verify }).click();
    await expect(row(page, phone)).toContainText(en.profile.verified);
  });

  await test.step('change the password (Security tab, kept in the URL): a wrong current one is refused under the field, the right one works', async () => {
    await expect(page.getByRole('button', { name: ta.changePassword })).toBeHidden();
    await page.getByRole('tab', { name: en.profile.tabs.security }).click();
    await expect(page).toHaveURL(/#security$/);
    await page.reload();
    await expect(page.getByRole('tab', { name: en.profile.tabs.security })).toHaveAttribute('aria-selected', 'true');
    await readmeScreenshot(page, 'hosted-profile-security');
    await page.getByRole('button', { name: ta.changePassword }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel(ta.currentPassword).fill('not my password');
    await dialog.getByLabel(ta.newPassword).fill(passwords.next);
    await dialog.getByRole('button', { name: ta.savePassword }).click();
    await expect(dialog.getByText(en.errors.passwordIncorrect)).toBeVisible();
    await dialog.getByLabel(ta.currentPassword).fill(passwords.old);
    await dialog.getByRole('button', { name: ta.savePassword }).click();
    await expect(page.getByText(ta.passwordChanged)).toBeVisible();
    await expectAccessible(page);
  });

  await test.step('sign out, then sign in with the new address and the new password', async () => {
    await page.getByRole('button', { name: en.profile.signOut }).first().click();
    await expect(page.getByRole('heading', { name: en.signIn.title })).toBeVisible();
    await page.getByLabel(en.fields.identifier).fill(second);
    await page.getByLabel(en.fields.password, { exact: true }).fill(passwords.next);
    await page.getByRole('button', { name: en.signIn.submit, exact: true }).click();
    await expect(page.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
  });

  await test.step('delete the account after typing the confirmation word', async () => {
    const me = await page.evaluate(async (base) => (await (await fetch(`${base}/v1/me`)).json()) as { id: string }, instance.fapi_url);
    await page.getByRole('button', { name: ta.deleteAccount }).click();
    const dialog = page.getByRole('dialog');
    await expect(dialog.getByRole('button', { name: ta.deleteAccount })).toBeDisabled();
    await dialog.getByRole('textbox').fill(ta.deleteWord);
    await dialog.getByRole('button', { name: ta.deleteAccount }).click();
    await expect(page.getByRole('heading', { name: en.signIn.title })).toBeVisible();
    const gone = await fetch(`${E2E_BASE_URL}/v1/users/${me.id}`, { headers: { authorization: `Bearer ${instance.secret}` } });
    expect(gone.status).toBe(404);
  });
});
