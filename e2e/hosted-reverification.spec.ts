import { expect, test } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import consoleEn from '../messages/en/console.json' with { type: 'json' };
import { cli, createOperatorInstance, hostedSignUp, latestCode, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const ta = en.account;
const tr = en.reverify;

/**
 * Issue #44: the hosted profile's guarded changes from a stale session. The operator sets the
 * instance's reverification window to its lowest (1 minute) in the console; the session is then
 * left past it by the server's own clock, so the change answers 403 and the page asks for the
 * verification in place (password, then an emailed code), then completes the change.
 */
test('a stale session is asked to verify again in place: by password to add an address, by an emailed code to delete the account', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Rhea',
    email: uniqueEmail('reverify-owner'),
    password: 'verify me again please',
    accountName: 'Reverify Co',
    instanceName: 'Reverify',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');

  await test.step('the console sets the reverification window to 1 minute', async () => {
    await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/settings/sessions`);
    const field = page.getByLabel(consoleEn.settings.reverificationWindow);
    await expect(field).toHaveValue('10');
    await field.fill('0');
    await page.getByRole('button', { name: consoleEn.unsaved.save }).click();
    await expect(page.getByText(consoleEn.settings.reverificationRange)).toBeVisible();
    await field.fill('1');
    await page.getByRole('button', { name: consoleEn.unsaved.save }).click();
    await expect(page.getByText(consoleEn.unsaved.saved)).toBeVisible();
  });

  const context = await browser.newContext();
  const user = await context.newPage();
  const email = uniqueEmail('reverify');
  const second = uniqueEmail('reverify-work');
  const password = 'a passphrase to prove';

  await test.step('sign up; a session that just signed in is fresh', async () => {
    await hostedSignUp(user, { ...instance, secret }, email, password);
  });

  // Past the window by the server's clock.
  await user.waitForTimeout(65_000);

  await test.step('adding an address asks for the password, then the address is added', async () => {
    await user.getByRole('button', { name: ta.email.add }).click();
    await user.getByRole('dialog').getByLabel(ta.email.label).fill(second);
    await user.getByRole('dialog').getByRole('button', { name: ta.email.addSubmit }).click();
    const verify = user.getByRole('dialog').filter({ hasText: tr.title });
    await expect(verify).toBeVisible();
    await verify.getByLabel(en.fields.password, { exact: true }).fill('not my passphrase');
    await verify.getByRole('button', { name: tr.confirm }).click();
    await expect(verify.getByText(en.errors.credentialsInvalid)).toBeVisible();
    await verify.getByLabel(en.fields.password, { exact: true }).fill(password);
    await verify.getByRole('button', { name: tr.confirm }).click();
    await expect(verify).toHaveCount(0);
    // The change went through: the address's own verification is asked next.
    await expect(user.getByRole('dialog').getByRole('heading', { name: ta.email.verifyTitle })).toBeVisible();
    await user
      .getByRole('dialog')
      .getByLabel(ta.codeLabel)
      .fill(await latestCode(secret, second));
    await user.getByRole('dialog').getByRole('button', { name: ta.verify }).click();
    await expect(user.getByRole('listitem', { name: second, exact: true })).toContainText(en.profile.verified);
  });

  await user.waitForTimeout(65_000);

  await test.step('deleting the account asks again; verified by an emailed code, the account is deleted', async () => {
    await user.getByRole('button', { name: ta.deleteAccount }).click();
    const confirm = user.getByRole('dialog');
    await confirm.getByRole('textbox').fill(ta.deleteWord);
    await confirm.getByRole('button', { name: ta.deleteAccount }).click();
    const verify = user.getByRole('dialog').filter({ hasText: tr.title });
    await expect(verify).toBeVisible();
    await verify.getByRole('button', { name: tr.strategy.email_code, exact: true }).click();
    await verify.getByRole('button', { name: tr.sendCode }).click();
    await verify.getByLabel(tr.emailCodeLabel).fill(await latestCode(secret, email));
    await verify.getByRole('button', { name: tr.confirm }).click();
    await expect(user.getByRole('heading', { name: en.signIn.title })).toBeVisible();
    const gone = await fetch(`${E2E_BASE_URL}/v1/users?email_address=${encodeURIComponent(email)}`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(((await gone.json()) as { data: unknown[] }).data).toEqual([]);
  });
  await context.close();
});
