import { expect, test } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorAccount, createOperatorInstance, latestEmail, screenshot, smsCode, uniqueEmail } from './support/helpers';

const payloadOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as Record<string, unknown>;

test('settings: the session token template with its live preview, saved and carried by new tokens', async ({ page }) => {
  const accountId = await createOperatorAccount(page, {
    firstName: 'Sam',
    email: uniqueEmail('settings-owner'),
    password: 'settled in nicely',
    accountName: 'Settings Co',
  });
  const instance = cli<{ instance_id: string }>('instance', 'create', '--name', 'Tokens', '--env', 'test', '--account', accountId);
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const user = await bapi<{ id: string }>(secret, 'POST', '/v1/users', {
    email_address: [uniqueEmail('claims')],
    first_name: 'Grace',
    public_metadata: { plan: 'enterprise' },
  });

  await page.goto(`/accounts/${accountId}/instances/${instance.instance_id}/settings/session-token`);
  const template = page.getByLabel(en.sessionToken.template);
  const preview = page.getByLabel(en.sessionToken.preview);

  await test.step('a broken template is flagged when left; a good one previews the newest user’s claims', async () => {
    await template.fill('{ "plan": ');
    await template.blur();
    await expect(page.getByText(en.sessionToken.invalidJson)).toBeVisible();
    await template.fill('{ "plan": "{{user.public_metadata.plan}}", "hello": "Hi {{user.first_name}}" }');
    await expect(preview).toContainText('"plan": "enterprise"');
    await expect(preview).toContainText('"hello": "Hi Grace"');
    await expect(preview).toContainText(`"sub": "${user.id}"`);
  });

  await test.step('a built-in claim is refused by the server under the field', async () => {
    await template.fill('{ "sub": "me" }');
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(template).toHaveAttribute('aria-invalid', 'true');
  });

  await test.step('saved, the template is carried by a new session token', async () => {
    await template.fill('{ "plan": "{{user.public_metadata.plan}}" }');
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();
    await screenshot(page, 'console-session-token');
    const session = await bapi<{ jwt: string }>(secret, 'POST', '/v1/sessions', { user_id: user.id });
    expect(payloadOf(session.jwt)).toMatchObject({ sub: user.id, plan: 'enterprise' });
  });
});

test('settings: the password policy and the organization settings, each entry checked when it is left', async ({ page, browser }) => {
  const { accountId, instance } = await createOperatorInstance(page, {
    firstName: 'Pat',
    email: uniqueEmail('policy-owner'),
    password: 'policies are fun',
    accountName: 'Policy Co',
    instanceName: 'Policies',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  const settings = `/accounts/${accountId}/instances/${instance.instance_id}/settings`;
  await page.goto(`${settings}/sign-up`);

  await test.step('password policy: a length out of range is flagged on blur; 12 with a digit is saved and shown on the hosted sign-up', async () => {
    const min = page.getByLabel(en.passwordPolicy.minLength);
    await min.fill('6');
    await min.blur();
    await expect(page.getByText(en.passwordPolicy.minInvalid)).toBeVisible();
    await min.fill('12');
    await min.blur();
    await expect(page.getByText(en.passwordPolicy.minInvalid)).toHaveCount(0);
    await page.getByLabel(en.passwordPolicy.rules.require_digit).check();
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();

    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-up`);
    await expect(visitor.getByText('At least 12 characters, with a digit.')).toBeVisible();
    await visitor.getByLabel(hosted.fields.email).fill(uniqueEmail('policy-user'));
    await visitor.getByLabel(hosted.fields.password, { exact: true }).fill('no digits at all here');
    await visitor.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
    await expect(visitor.getByText(hosted.errors.passwordNeedsDigit)).toBeVisible();
    await visitor.context().close();
  });

  await test.step('sign-in methods: both first factors off is refused; codes only leaves the hosted sign-in without a password field', async () => {
    const methods = page.getByRole('group', { name: en.signInMethods.title });
    await methods.getByLabel(en.signInMethods.methods.password, { exact: true }).uncheck();
    await methods.getByLabel(en.signInMethods.methods.email_code).uncheck();
    await expect(page.getByText(en.signInMethods.noFactor)).toBeVisible();
    // Refused before it is sent: the reason stays beside the switches, nothing is saved.
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.signInMethods.noFactor)).toBeVisible();
    await expect(page.getByText(en.unsaved.saved)).toHaveCount(0);
    await methods.getByLabel(en.signInMethods.methods.email_code).check();
    await methods.getByLabel(en.signInMethods.methods.username).uncheck();
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();

    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-in`);
    await expect(visitor.getByRole('button', { name: hosted.signIn.emailCode })).toBeVisible();
    await expect(visitor.getByLabel(hosted.fields.email)).toBeVisible();
    await expect(visitor.getByLabel(hosted.fields.password, { exact: true })).toHaveCount(0);
    await expect(visitor.getByRole('link', { name: hosted.signIn.forgotPassword })).toHaveCount(0);
    await visitor.context().close();
  });

  await test.step('sign-in methods: with phone codes on, a user signs in with their number and the code sent by SMS', async () => {
    const phone = `+1415555${String(Date.now()).slice(-4)}`;
    await bapi(secret, 'POST', '/v1/users', { email_address: [uniqueEmail('phone-user')], phone_number: [phone] });
    await page.getByRole('group', { name: en.signInMethods.title }).getByLabel(en.signInMethods.methods.phone_code).check();
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();

    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-in`);
    await visitor.getByLabel(hosted.fields.emailOrPhone).fill(phone);
    await visitor.getByRole('button', { name: hosted.signIn.sendCode }).click();
    await expect(visitor.getByRole('heading', { name: hosted.verify.titlePhone })).toBeVisible();
    await expect(visitor.getByText(phone)).toBeVisible();
    await visitor.getByLabel(hosted.code.label).fill(await smsCode(secret, phone));
    await visitor.getByRole('button', { name: hosted.verify.submit }).click();
    await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible();
    await visitor.context().close();
  });

  await test.step('sign-in methods: with email links on, the link opened in another browser signs in the tab that asked', async () => {
    const email = uniqueEmail('link-user');
    await bapi(secret, 'POST', '/v1/users', { email_address: [email] });
    await page.getByRole('group', { name: en.signInMethods.title }).getByLabel(en.signInMethods.methods.email_link).check();
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();

    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-in`);
    await visitor.getByLabel(hosted.fields.emailOrPhone).fill(email);
    await visitor.getByRole('button', { name: hosted.signIn.emailLink }).click();
    await expect(visitor.getByText(hosted.verify.linkWaiting)).toBeVisible();
    const sent = await latestEmail(secret, email, 'sign_in_link');
    const mailApp = await (await browser.newContext()).newPage();
    await mailApp.goto(String(sent.data.url));
    await expect(mailApp.getByRole('heading', { name: hosted.linkVerified.verifiedTitle })).toBeVisible();
    await expect(visitor.getByRole('heading', { name: hosted.profile.title, level: 1 })).toBeVisible();
    await mailApp.context().close();
    await visitor.context().close();
  });

  await test.step('organization settings: a bad member limit is flagged on blur; roles and limit are saved', async () => {
    await page.goto(`${settings}/organizations`);
    const limit = page.getByLabel(en.organizationSettings.limit);
    await limit.fill('lots');
    await limit.blur();
    await expect(page.getByText(en.organizationSettings.limitInvalid)).toBeVisible();
    await limit.fill('40');
    await page.getByLabel(en.organizationSettings.defaultRole).selectOption('org:admin');
    await page.getByLabel(en.organizationSettings.creation).uncheck();
    await page.getByRole('button', { name: en.unsaved.save }).click();
    await expect(page.getByText(en.unsaved.saved)).toBeVisible();
    await page.reload();
    await expect(page.getByLabel(en.organizationSettings.limit)).toHaveValue('40');
    await expect(page.getByLabel(en.organizationSettings.defaultRole)).toHaveValue('org:admin');
    await expect(page.getByLabel(en.organizationSettings.creation)).not.toBeChecked();
    await page.goto(`${settings}/sign-up`);
    await expect(page.getByLabel(en.passwordPolicy.minLength)).toHaveValue('12');
    await screenshot(page, 'console-settings-policies');
  });
});
