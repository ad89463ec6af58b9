import { expect, test } from '@playwright/test';
import common from '../messages/en/common.json' with { type: 'json' };
import frCommon from '../messages/fr/common.json' with { type: 'json' };
import en from '../messages/en/console.json' with { type: 'json' };
import fr from '../messages/fr/console.json' with { type: 'json' };
import hosted from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, cli, createOperatorInstance, createTestInstance, uniqueEmail } from './support/helpers';

/** ICU copy with its placeholders filled the simple way (`{field}`) and plurals taken as "other". */
const fill = (message: string, values: Record<string, string | number>) =>
  message
    .replace(/\{(\w+), plural, one \{[^}]*\} other \{([^}]*)\}\}/g, (_, name: string, other: string) =>
      other.replace('#', String(values[name])),
    )
    .replace(/\{(\w+)\}/g, (_, name: string) => String(values[name]));

test('a refused value is told in the UI’s language, per field, never as the validator’s text', async ({ page, browser }) => {
  const {
    accountId,
    instance: { instance_id: instanceId },
  } = await createOperatorInstance(page, {
    firstName: 'Mia',
    email: uniqueEmail('messages-owner'),
    password: 'plain words please',
    accountName: 'Words Co',
    instanceName: 'Words',
  });
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instanceId, '--scopes', '*', '--name', 'e2e');
  const taken = uniqueEmail('taken');
  await bapi(secret, 'POST', '/v1/users', { email_address: [taken] });
  const users = `/accounts/${accountId}/instances/${instanceId}/users`;

  await test.step('English: a username too short, under its field', async () => {
    await page.goto(users);
    await page.getByRole('button', { name: en.users.create }).click();
    const dialog = page.getByRole('dialog', { name: en.createUser.title });
    await dialog.getByLabel(en.createUser.username).fill('ab');
    await dialog.getByRole('button', { name: en.createUser.submit }).click();
    await expect(dialog.getByText(fill(common.validation.tooShort, { field: common.fields.username, min: 3 }))).toBeVisible();
    await expect(dialog.getByText(/Too small|expected string/)).toHaveCount(0);
  });

  await test.step('French: a taken email address', async () => {
    await page.context().addCookies([{ name: 'latchkey_locale', value: 'fr', url: page.url() }]);
    await page.goto(users);
    await page.getByRole('button', { name: fr.users.create }).click();
    const dialog = page.getByRole('dialog', { name: fr.createUser.title });
    await dialog.getByLabel(fr.createUser.email).fill(taken);
    await dialog.getByRole('button', { name: fr.createUser.submit }).click();
    await expect(dialog.getByText(fill(frCommon.validation.taken, { field: frCommon.fields.email_address }))).toBeVisible();
    await page.context().clearCookies({ name: 'latchkey_locale' });
  });

  await test.step('the hosted sign-up shows every field’s problem at once', async () => {
    const instance = createTestInstance('All At Once');
    const existing = uniqueEmail('already');
    await bapi(instance.secret, 'POST', '/v1/users', { email_address: [existing] });
    const visitor = await (await browser.newContext()).newPage();
    await visitor.goto(`${instance.fapi_url}/sign-up`);
    await visitor.getByLabel(hosted.fields.email).fill(existing);
    await visitor.getByLabel(hosted.fields.password, { exact: true }).fill('short');
    await visitor.getByRole('button', { name: hosted.signUp.submit, exact: true }).click();
    await expect(visitor.getByText(hosted.errors.emailTaken)).toBeVisible();
    await expect(visitor.getByText(fill(hosted.errors.passwordTooShort, { min: 8 }))).toBeVisible();
    await visitor.context().close();
  });
});
