import { expect, test } from '@playwright/test';
import en from '../messages/en/console.json' with { type: 'json' };
import { cli, createOperatorAccount, screenshot, uniqueEmail } from './support/helpers';
import { E2E_BASE_URL } from './support/server';

const tu = en.users;

test('users list: create a user, filter, sort, choose columns, keep it all in the URL, export CSV', async ({ page }) => {
  const accountId = await createOperatorAccount(page, { firstName: 'Uma', email: uniqueEmail('users-owner'), password: 'many users here', accountName: 'Users Co' });
  const instance = cli<{ instance_id: string }>('instance', 'create', '--name', 'Crowd', '--env', 'test', '--account', accountId);
  const { secret } = cli<{ secret: string }>('keys', 'create', '--instance', instance.instance_id, '--scopes', '*', '--name', 'e2e');
  for (const [first, email] of [['Zoe', 'zoe@crowd.test'], ['Bob', 'bob@crowd.test']]) {
    const res = await fetch(`${E2E_BASE_URL}/v1/users`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ first_name: first, email_address: [email] }) });
    expect(res.ok).toBe(true);
  }
  const list = `/accounts/${accountId}/instances/${instance.instance_id}/users`;
  await page.goto(list);
  const table = page.getByRole('table', { name: tu.title });

  await test.step('an operator creates a user from the console; a bad phone is flagged when left', async () => {
    await page.getByRole('button', { name: tu.create }).click();
    const dialog = page.getByRole('dialog', { name: en.createUser.title });
    await dialog.getByLabel(en.createUser.firstName).fill('Ada');
    await dialog.getByLabel(en.createUser.phone).fill('12345');
    await dialog.getByLabel(en.createUser.phone).blur();
    await expect(dialog.getByText(en.createUser.invalid.phone_number)).toBeVisible();
    await dialog.getByLabel(en.createUser.phone).fill('+14155550123');
    await dialog.getByLabel(en.createUser.email).fill('ada@crowd.test');
    await dialog.getByLabel(en.createUser.password).fill('analytical engine');
    await dialog.getByRole('button', { name: en.createUser.submit }).click();
    await expect(page.getByRole('heading', { name: 'Ada', level: 1 })).toBeVisible();
    await page.goto(list);
  });

  await test.step('sort by name, filter, and the URL keeps it through a reload', async () => {
    await page.getByLabel(tu.sort).selectOption('name');
    await expect(table.locator('tbody tr').first()).toContainText('Ada');
    await expect(table.locator('tbody tr').last()).toContainText('Zoe');
    await expect(page).toHaveURL(/order_by=name/);
    await page.getByRole('searchbox', { name: tu.search }).fill('crowd.test');
    await expect(page).toHaveURL(/query=crowd.test/);
    await page.getByLabel(tu.flags.banned).selectOption('true');
    await expect(page.getByText(tu.noMatchesFiltered)).toBeVisible();
    await page.reload();
    await expect(page.getByLabel(tu.flags.banned)).toHaveValue('true');
    await expect(page.getByRole('searchbox', { name: tu.search })).toHaveValue('crowd.test');
    await page.getByRole('button', { name: tu.clear }).click();
    await expect(table.locator('tbody tr')).toHaveCount(3);
  });

  await test.step('columns: the phone column is added and remembered', async () => {
    await page.getByText(tu.columns, { exact: true }).click();
    await page.getByLabel(tu.columnNames.phone).check();
    await expect(table.getByRole('columnheader', { name: tu.columnNames.phone })).toBeVisible();
    await expect(table).toContainText('+14155550123');
    await page.reload();
    await expect(table.getByRole('columnheader', { name: tu.columnNames.phone })).toBeVisible();
    await screenshot(page, 'console-users-list');
  });

  await test.step('export: the filtered list as CSV', async () => {
    await page.getByRole('searchbox', { name: tu.search }).fill('zoe');
    await expect(table.locator('tbody tr')).toHaveCount(1);
    const download = page.waitForEvent('download');
    await page.getByRole('link', { name: tu.export }).click();
    const file = await download;
    const path = await file.path();
    const csv = (await import('node:fs')).readFileSync(path, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^id,first_name,last_name/);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('zoe@crowd.test');
  });
});
