import { expect, test } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { startFakeTwilio } from '../server/testing/fake-twilio';
import { bapi, cli, createOperatorAccount, createOperatorInstance, smsCode, uniqueEmail } from './support/helpers';

test('phone sign-up on the hosted page: offered once phone codes are on; the code goes by SMS and the account has the number verified', async ({
  page,
  browser,
}) => {
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Pia',
    email: uniqueEmail('phone-owner'),
    password: 'numbers all the way',
    accountName: 'Phone Co',
    instanceName: 'Phone Shop',
  });
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
  await page.getByRole('button', { name: en.unsaved.save }).click();
  await expect(page.getByText(en.unsaved.saved)).toBeVisible();

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
    const users = await bapi<{
      data: Array<{ phone_numbers: Array<{ phone_number: string; verification: { status: string; strategy: string } }> }>;
    }>(secret, 'GET', `/v1/users?query=${encodeURIComponent(phone)}`);
    expect(users.data[0]?.phone_numbers[0]).toMatchObject({
      phone_number: phone,
      verification: { status: 'verified', strategy: 'phone_code' },
    });

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

test('the console’s SMS card: Twilio settings saved, a test SMS reaches Twilio (a local fake) with them, and the outbox shows its delivery status', async ({
  page,
}) => {
  const account = { sid: `AC${'e5'.repeat(16)}`, authToken: 'e2e-twilio-auth-token' };
  const fake = await startFakeTwilio(account);
  try {
    const accountId = await createOperatorAccount(page, {
      firstName: 'Tom',
      email: uniqueEmail('sms-owner'),
      password: 'texting all day long',
      accountName: 'Texts Co',
    });
    const instance = cli<{ instance_id: string }>('instance', 'create', '--name', 'Texts', '--env', 'test', '--account', accountId);
    const base = `/accounts/${accountId}/instances/${instance.instance_id}`;
    const t = en.smsSettings;

    await page.goto(`${base}/settings/sms`);
    await expect(page.getByText(t.notConfigured)).toBeVisible();
    await page.getByLabel(t.accountId).fill(account.sid);
    await page.getByLabel(t.authToken).fill(account.authToken);
    await page.getByLabel(t.fromNumber).fill('+15005550006');
    await page.getByLabel(t.apiBase).fill(fake.url);
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();
    await expect(page.getByText(t.configured)).toBeVisible();

    await page.getByLabel(t.testTo).fill('+14155550123');
    await page.getByRole('button', { name: t.testSend }).click();
    await expect(page.getByText(t.testResult.replace('{status}', 'sent'))).toBeVisible();
    expect(fake.messages).toHaveLength(1);
    expect(fake.messages[0]).toMatchObject({
      basicAuth: `${account.sid}:${account.authToken}`,
      form: { To: '+14155550123', From: '+15005550006' },
    });
    expect(fake.messages[0]!.form.StatusCallback).toMatch(new RegExp(`/v1/sms_callbacks/twilio/${instance.instance_id}\\?sms_id=sms_`));

    await page.goto(`${base}/outbox`);
    await page.getByRole('tab', { name: en.outbox.tabs.sms }).click();
    await expect(page.getByText(/This is a test message from/).first()).toBeVisible();
    await expect(page.getByRole('definition').filter({ hasText: /^Sent$/ })).toBeVisible();
    await expect(page.getByRole('definition').filter({ hasText: /^1$/ })).toBeVisible();
  } finally {
    await fake.close();
  }
});
