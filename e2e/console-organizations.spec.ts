import { expect, test, type Page } from '@playwright/test';
import en from '../messages/en/organizations.json' with { type: 'json' };
import { E2E_BASE_URL } from './support/server';
import { cli, createOperatorAccount, screenshot, uniqueEmail } from './support/helpers';

async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

/** Checks a page at a 375px phone width, then goes back to the desktop width. */
async function atPhoneWidth(page: Page, check: () => Promise<void>) {
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 375, height: 800 });
  await check();
  await expectNoHorizontalScroll(page);
  await page.setViewportSize(size);
}

test('an operator creates an organization, manages its members, invitations and domains, and edits roles', async ({ browser }) => {
  const page = await (await browser.newContext()).newPage();
  let base = '';
  let secret = '';
  const member = { email: uniqueEmail('org-member'), id: '' };
  const invitee = uniqueEmail('org-invitee');
  const domain = `acme-${Date.now().toString(36)}.example.com`;

  await test.step('an operator of their own account and a test instance with a user', async () => {
    const accountId = await createOperatorAccount(page, {
      firstName: 'Olga',
      email: uniqueEmail('orgs-owner'),
      password: 'teams and their roles',
      accountName: 'Orgs GmbH',
    });
    const created = cli<{ instance_id: string }>('instance', 'create', '--name', 'Orgs', '--env', 'test', '--account', accountId);
    secret = cli<{ secret: string }>('keys', 'create', '--instance', created.instance_id, '--scopes', '*', '--name', 'e2e').secret;
    base = `/accounts/${accountId}/instances/${created.instance_id}`;
    const response = await fetch(`${E2E_BASE_URL}/v1/users`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email_address: member.email, first_name: 'Marta' }),
    });
    expect(response.status, await response.clone().text()).toBeLessThan(300);
    member.id = ((await response.json()) as { id: string }).id;
  });

  await test.step('the roles editor: a custom permission, then a role that grants it', async () => {
    await page.goto(`${base}/roles`);
    await expect(page.getByRole('heading', { name: en.roles.title, level: 1 })).toBeVisible();
    await expect(page.getByRole('row', { name: /org:admin/ }).getByText(en.roles.builtIn)).toBeVisible();

    await page.getByRole('button', { name: en.roles.createPermission }).click();
    const permissionDialog = page.getByRole('dialog', { name: en.roles.createPermissionTitle });
    await permissionDialog.getByLabel(en.roles.key).fill('org:invoices:read');
    await permissionDialog.getByLabel(en.roles.name).fill('Read invoices');
    await permissionDialog.getByLabel(en.roles.permissionDescription).fill('See the invoices of the organization');
    await permissionDialog.getByRole('button', { name: en.roles.createPermission }).click();
    await expect(permissionDialog).toBeHidden();
    await expect(
      page.getByRole('table', { name: en.roles.permissionsTitle }).getByRole('row', { name: /org:invoices:read/ }),
    ).toContainText('See the invoices');

    await page.getByRole('button', { name: en.roles.createRole }).click();
    const roleDialog = page.getByRole('dialog', { name: en.roles.createRoleTitle });
    // The key follows the name until it is edited.
    await roleDialog.getByLabel(en.roles.name).fill('Billing Team');
    await expect(roleDialog.getByLabel(en.roles.key, { exact: true })).toHaveValue('org:billing_team');
    await roleDialog.getByLabel(en.roles.name).fill('Billing');
    await expect(roleDialog.getByLabel(en.roles.key, { exact: true })).toHaveValue('org:billing');
    await roleDialog.getByRole('checkbox', { name: 'Read invoices (org:invoices:read)' }).check();
    await roleDialog.getByRole('button', { name: en.roles.save }).click();
    await expect(roleDialog).toBeHidden();
    const row = page.getByRole('table', { name: en.roles.rolesTitle }).getByRole('row', { name: /org:billing/ });
    await expect(row).toContainText('Billing');
    // Permission columns read as names; the key is on hover.
    await expect(row.getByText('Read invoices', { exact: true })).toHaveAttribute('title', 'org:invoices:read');
    await expect(row).not.toContainText('org:invoices:read');
    await screenshot(page, 'console-roles');
    await atPhoneWidth(page, async () => {
      await expect(page.getByRole('button', { name: en.roles.createRole })).toBeVisible();
    });
  });

  await test.step('an organization is created through the page', async () => {
    await page.goto(`${base}/organizations`);
    await expect(page.getByRole('heading', { name: en.list.title, level: 1 })).toBeVisible();
    await expect(page.getByText(en.list.emptyTitle)).toBeVisible();
    await page.getByRole('button', { name: en.list.create }).click();
    const dialog = page.getByRole('dialog', { name: en.list.createTitle });
    await dialog.getByRole('button', { name: en.list.create }).click();
    await expect(dialog.getByLabel(en.list.name)).toHaveAttribute('aria-invalid', 'true');
    await dialog.getByLabel(en.list.slug).fill('Not A Slug!');
    await dialog.getByLabel(en.list.name).fill('Acme Corp');
    await dialog.getByRole('button', { name: en.list.create }).click();
    await expect(dialog.getByLabel(en.list.slug)).toHaveAttribute('aria-invalid', 'true');
    await dialog.getByLabel(en.list.slug).fill('');
    await dialog.getByRole('button', { name: en.list.create }).click();
    await expect(page).toHaveURL(/\/organizations\/org_/);
    await expect(page.getByRole('heading', { name: 'Acme Corp', level: 1 })).toBeVisible();
  });

  await test.step('the list shows it, and leads to its page', async () => {
    await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: en.nav.organizations }).click();
    const link = page.getByRole('link', { name: /Acme Corp/ });
    await expect(link).toBeVisible();
    await expect(link).toContainText('acme-corp');
    await page.getByRole('searchbox', { name: en.list.search }).fill('nothing-like-it');
    await expect(page.getByText(en.list.noMatchesTitle)).toBeVisible();
    await page.getByRole('searchbox', { name: en.list.search }).fill('acme');
    await expect(link).toBeVisible();
    await screenshot(page, 'console-organizations');
    await atPhoneWidth(page, async () => {
      await expect(link).toBeVisible();
    });
    await link.click();
    await expect(page.getByRole('heading', { name: 'Acme Corp', level: 1 })).toBeVisible();
  });

  await test.step('a user is added as a member, then given the custom role', async () => {
    const members = page.getByRole('table', { name: en.detail.membersTitle });
    await page.getByLabel(en.detail.userId).fill('user_nobody');
    await page.getByRole('button', { name: en.detail.addMember }).click();
    await expect(page.getByLabel(en.detail.userId)).toHaveAttribute('aria-invalid', 'true');
    // The picker finds the user by name and shows the email.
    await page.getByLabel(en.detail.userId).fill('Marta');
    await page.getByRole('option', { name: new RegExp(member.email.replace(/[.+]/g, '\\$&')) }).click();
    await page.getByRole('button', { name: en.detail.addMember }).click();
    const row = members.getByRole('row', { name: new RegExp(member.email.replace(/[.+]/g, '\\$&')) });
    await expect(row).toContainText('Marta');
    await page.getByLabel(en.detail.userId).fill(member.id);
    await page.getByRole('button', { name: en.detail.addMember }).click();
    await expect(page.getByLabel(en.detail.userId)).toHaveAttribute('aria-invalid', 'true');
    await page.getByLabel(en.detail.userId).fill('');
    const role = row.getByRole('combobox', { name: `Role of ${member.email}` });
    await expect(role).toHaveValue('org:member');
    // The picker offers role names, not keys.
    await expect(role.locator('option:checked')).toHaveText('Member');
    await role.selectOption({ label: 'Billing' });
    await expect(role).toHaveValue('org:billing');
    await expect(row).toContainText('Read invoices');
    await expect(row).not.toContainText('org:invoices:read');
    await page.reload();
    await expect(
      page.getByRole('table', { name: en.detail.membersTitle }).getByRole('combobox', { name: `Role of ${member.email}` }),
    ).toHaveValue('org:billing');
  });

  await test.step('the organization is edited: a bad entry is flagged when left, then name, limit and metadata are saved', async () => {
    await page.getByRole('button', { name: en.detail.edit, exact: true }).click();
    const dialog = page.getByRole('dialog', { name: en.edit.title });
    await dialog.getByLabel(en.edit.memberLimit).fill('lots');
    await dialog.getByLabel(en.edit.name).focus();
    await expect(dialog.getByText(en.edit.wholeNumber)).toBeVisible();
    await dialog.getByLabel(en.edit.memberLimit).fill('25');
    await dialog.getByLabel(en.edit.publicMetadata).fill('{"tier": "gold"}');
    await dialog.getByLabel(en.edit.name).fill('Acme Corporation');
    await dialog.getByRole('button', { name: en.edit.save }).click();
    await expect(page.getByRole('heading', { name: 'Acme Corporation', level: 1 })).toBeVisible();
    await expect(page.getByText('/ 25')).toBeVisible();
  });

  await test.step('an address is invited by email and the invitation is listed', async () => {
    await page.getByRole('textbox', { name: en.detail.email }).fill(invitee);
    await page.getByRole('button', { name: en.detail.invite, exact: true }).click();
    const row = page
      .getByRole('table', { name: en.detail.invitationsTitle })
      .getByRole('row', { name: new RegExp(invitee.replace(/[.+]/g, '\\$&')) });
    await expect(row).toContainText(en.detail.invitationStatus.pending);
    await expect(row.getByText('Member', { exact: true })).toHaveAttribute('title', 'org:member');
    await page.getByRole('textbox', { name: en.detail.email }).fill(invitee);
    await page.getByRole('button', { name: en.detail.invite, exact: true }).click();
    await expect(page.getByRole('textbox', { name: en.detail.email })).toHaveAttribute('aria-invalid', 'true');
    await expect(page.getByText(`${invitee} already has a pending invitation.`)).toBeVisible();
    const second = uniqueEmail('org-second');
    await page.getByRole('textbox', { name: en.detail.email }).fill(second);
    await page.getByRole('combobox', { name: en.detail.role, exact: true }).last().selectOption({ label: 'Billing' });
    await page.getByRole('button', { name: en.detail.invite, exact: true }).click();
    const secondRow = page
      .getByRole('table', { name: en.detail.invitationsTitle })
      .getByRole('row', { name: new RegExp(second.replace(/[.+]/g, '\\$&')) });
    await expect(secondRow.getByText('Billing', { exact: true })).toHaveAttribute('title', 'org:billing');
    await secondRow.getByRole('button', { name: `Revoke the invitation of ${second}` }).click();
    await page.getByRole('dialog', { name: en.detail.revokeTitle }).getByRole('button', { name: en.detail.revoke }).click();
    await expect(secondRow).toContainText(en.detail.invitationStatus.revoked);
    await expect(row).toContainText(en.detail.invitationStatus.pending);
  });

  await test.step('a domain is added unverified with its TXT record, then marked verified', async () => {
    await page.getByRole('textbox', { name: en.detail.domain, exact: true }).fill(domain);
    await page.getByRole('button', { name: en.detail.addDomain }).click();
    await expect(page.getByText(domain, { exact: true })).toBeVisible();
    await expect(page.getByText(en.detail.unverified, { exact: true })).toBeVisible();
    await expect(page.getByLabel(en.detail.txtName, { exact: true })).toContainText(domain);
    await expect(page.getByRole('combobox', { name: `Enrollment mode of ${domain}` })).toHaveValue('manual_invitation');
    await screenshot(page, 'console-organization');
    await atPhoneWidth(page, async () => {
      await expect(page.getByRole('heading', { name: 'Acme Corp', level: 1 })).toBeVisible();
    });
    await page.getByRole('textbox', { name: en.detail.domain, exact: true }).fill(domain);
    await page.getByRole('button', { name: en.detail.addDomain }).click();
    await expect(page.getByRole('textbox', { name: en.detail.domain, exact: true })).toHaveAttribute('aria-invalid', 'true');
    await page.getByRole('textbox', { name: en.detail.domain, exact: true }).fill('');
    await page.getByRole('button', { name: `Mark ${domain} verified` }).click();
    await expect(page.getByText(/^Verified \(/)).toBeVisible();
    await expect(page.getByText(en.detail.unverified, { exact: true })).toBeHidden();
    await atPhoneWidth(page, async () => {
      await expect(page.getByRole('button', { name: en.detail.addDomain })).toBeVisible();
      await screenshot(page, 'console-organization-phone');
    });
  });

  await test.step('a role still held by a member cannot be deleted; the dialog says why', async () => {
    await page.goto(`${base}/roles`);
    await page.getByRole('button', { name: 'Delete org:billing' }).click();
    const dialog = page.getByRole('dialog', { name: en.roles.deleteRoleTitle });
    await dialog.getByRole('button', { name: en.roles.delete }).click();
    await expect(dialog.getByRole('alert')).toBeVisible();
    await expect(dialog).toBeVisible();
    await screenshot(page, 'console-roles-in-use');
  });
});
