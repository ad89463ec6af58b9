import { expect, test } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorAccount, smsCode, uniqueEmail } from './support/helpers';

test('phone sign-up on the hosted page: offered once phone codes are on; the code goes by SMS and the account has the number verified', async ({ page, browser }) => {
  const accountId = await createOperatorAccount(page, { firstName: 'Pia', email: uniqueEmail('phone-owner'), password: 'numbers all the way', accountName: 'Phone Co' });
  const instance = cli<{ instance_id: string; fapi_url: string }>('instance', 'create', '--name', 'Phone Shop', '--env', 'test', '--account', accountId);
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const phone = `+3361234${String(Date.now()).slice(-4)}`;
  const password = 'a phone passphrase 2026';

  await test.step('without phone codes the sign-up asks for an email address only', async () => {
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-up`);
    await expect(visitor.getByLabel(hosted.fields.email)).toBeVisible();
    await expect(visitor.getByRole('button', { name: hosted.signUp.usePhone })).toHaveCount(0);
    await visitor.context().close();
  });

  await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/settings/sign-up`);
  await page.getByRole('group', { name: en.signInMethods.title }).getByLabel(en.signInMethods.methods.phone_code).check();
  await page.getByRole('button', { name: en.signInMethods.save }).click();
  await expect(page.getByText(en.signInMethods.saved)).toBeVisible();

  const visitor = await (await browser.newContext()).newPage();
  await test.step('a visitor switches to a phone number, is refused a malformed one, and signs up with the SMS code', async () => {
    await visitor.goto(`${instance.fapi_url}/sign-up`);
    await visitor.getByRole('button', { name: hosted.signUp.usePhone }).click();
    await expect(visitor.getByLabel(hosted.fields.email)).toHaveCount(0);
    const number = visitor.getByLabel(hosted.fields.phone);
    await number.fill('0612');
    await visitor.getByLabel(hosted.fields.password, { exact: true }).fill(password);
    await visitor.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
    await expect(number).toHaveAttribute('aria-invalid', 'true');

    await number.fill(phone);
    await visitor.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
    await expect(visitor.getByRole('heading', { name: hosted.signUp.verifyPhoneTitle })).toBeVisible();
    await expect(visitor.getByText(phone)).toBeVisible();
    await expect(visitor.getByRole('link', { name: hosted.signUp.changePhone })).toBeVisible();
    await visitor.getByLabel(hosted.code.label).fill(await smsCode(secret, phone));
    await visitor.getByRole('button', { name: hosted.signUp.verifySubmit }).click();
    await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible();
  });

  await test.step('the user has the number, verified by the SMS code, and signs in with it', async () => {
    const users = await bapi<{ data: Array<{ phone_numbers: Array<{ phone_number: string; verification: { status: string; strategy: string } }> }> }>(
      secret,
      'GET',
      `/v1/users?query=${encodeURIComponent(phone)}`,
    );
    expect(users.data[0]?.phone_numbers[0]).toMatchObject({ phone_number: phone, verification: { status: 'verified', strategy: 'phone_code' } });

    const again = await (await browser.newContext()).newPage();
    await again.goto(`${instance.fapi_url}/sign-in`);
    await again.getByLabel(hosted.fields.identifierPhone).fill(phone);
    await again.getByLabel(hosted.fields.password, { exact: true }).fill(password);
    await again.getByRole('button', { name: hosted.signIn.submit, exact: true }).click();
    await expect(again.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible();
    await again.context().close();
  });
  await visitor.context().close();
});
