import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Browser, type Page } from '@playwright/test';
import en from '../messages/en/hosted.json' with { type: 'json' };
import { bapi, createTestInstance, hostedSignUp, latestEmail, uniqueEmail } from './support/helpers';
import { DNS_RECORDS_FILE, SCREENSHOT_DIR } from './support/server';

const to = en.organizations;

/** Fails on any WCAG 2.1 A/AA violation axe-core finds on the page as it is now. */
async function expectAccessible(page: Page, where: string) {
  const { violations } = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze();
  expect(violations.map((v) => `${where} ${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** Publishes a TXT record on the loopback DNS server the started server asks (DNS_RESOLVER). */
function publishTxt(name: string, value: string) {
  const records = JSON.parse(readFileSync(DNS_RECORDS_FILE, 'utf8')) as Record<string, string[][]>;
  records[name] = [[value]];
  writeFileSync(DNS_RECORDS_FILE, JSON.stringify(records));
}

/** A picture for docs/screenshots/ (copied from e2e/screenshots/readme/ by hand): what a person sees, from the top. */
async function docScreenshot(page: Page, name: string) {
  await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: path.join(SCREENSHOT_DIR, 'readme', `${name}.jpg`), type: 'jpeg', quality: 70 });
}

async function expectNoHorizontalScroll(page: Page) {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    innerWidth: window.innerWidth,
  }));
  expect(scrollWidth).toBeLessThanOrEqual(innerWidth);
}

const switcher = (page: Page) => page.getByRole('button', { name: new RegExp(`${to.switcherLabel}$`) });

async function newPage(browser: Browser, options: Parameters<Browser['newContext']>[0] = {}) {
  return (await browser.newContext({ viewport: { width: 1200, height: 900 }, ...options })).newPage();
}

test('hosted organizations: an end user signs up, creates an organization, invites a second person who joins, changes their role, verifies a domain; the invitee leaves', async ({
  browser,
}) => {
  const instance = createTestInstance('Hosted Orgs');
  const owner = { email: uniqueEmail('orla'), password: 'a team of our own 2026' };
  const invitee = { email: uniqueEmail('ivo'), password: 'joining the team 2026' };
  const orgName = 'Northwind Traders';
  const domain = `northwind-${Date.now().toString(36)}.example.com`;
  const page = await newPage(browser);
  const member = (p: Page, email: string) =>
    p.getByRole('list', { name: to.membersTitle }).getByRole('listitem').filter({ hasText: email });

  await test.step('the owner signs up on the hosted page; the switcher shows the personal account', async () => {
    await hostedSignUp(page, instance, owner.email, owner.password);
    await expect(switcher(page)).toContainText(to.personal);
  });

  await test.step('creates an organization from the switcher; it becomes the active one and its profile opens', async () => {
    await switcher(page).click();
    await expectAccessible(page, 'profile with the switcher open');
    await page.getByRole('link', { name: to.create }).click();
    await expect(page.getByRole('heading', { name: to.createTitle })).toBeVisible();
    await expectAccessible(page, '/create-organization');
    // An empty name is refused under the field, without a request.
    await page.getByRole('button', { name: to.createSubmit }).click();
    await expect(page.getByText(to.nameRequired)).toBeVisible();
    await page.getByLabel(to.name, { exact: true }).fill(orgName);
    await docScreenshot(page, 'hosted-create-organization');
    await page.getByRole('button', { name: to.createSubmit }).click();
    await expect(page.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
    await expect(page.getByText(to.yourRole.replace('{role}', 'Admin'))).toBeVisible();
  });

  await test.step('the profile’s switcher names the organization and lists it beside the personal account', async () => {
    await page.getByRole('link', { name: to.backToProfile }).click();
    await expect(switcher(page)).toContainText(orgName);
    await switcher(page).click();
    const menu = page.getByRole('list', { name: to.switchTo });
    await expect(menu.getByRole('button', { name: orgName })).toHaveAttribute('aria-current', 'true');
    await expect(menu.getByRole('button', { name: to.personal })).toBeVisible();
    await docScreenshot(page, 'hosted-organization-switcher');
    await page.keyboard.press('Escape');
    await expect(menu).toBeHidden();
    await page.getByRole('link', { name: to.manage }).click();
    await expect(page.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
  });

  let invitationUrl = '';
  await test.step('invites a second address; the invitation is in the outbox and listed as pending', async () => {
    await page.getByLabel(to.inviteEmail).fill(invitee.email);
    await page.getByRole('button', { name: to.sendInvitation }).click();
    await expect(page.getByText(to.invitationSent.replace('{email}', invitee.email))).toBeVisible();
    await expect(page.getByRole('list', { name: to.pendingInvitations })).toContainText(invitee.email);
    const mail = await latestEmail(instance.secret, invitee.email, 'organization_invitation');
    invitationUrl = mail.data.url as string;
    expect(invitationUrl).toContain(`${instance.fapi_url}/organization-invitation?invitation_token=`);
  });

  await test.step('adds a domain, publishes its TXT record and checks DNS: the domain is verified', async () => {
    await page.getByLabel(to.domainName).fill(domain);
    await page.getByRole('button', { name: to.addDomain }).click();
    const row = page.getByRole('list', { name: to.domainsTitle }).getByRole('listitem').filter({ hasText: domain });
    await expect(row).toContainText(to.unverified);
    const name = (await row.getByLabel(to.txtName, { exact: true }).textContent())!;
    const value = (await row.getByLabel(to.txtValue, { exact: true }).textContent())!;
    publishTxt(name, value);
    await row.getByRole('button', { name: to.checkDns }).click();
    await expect(row).toContainText(to.verified);
    await expect(row).not.toContainText(to.unverified);
    await expectAccessible(page, '/organization (admin)');
  });

  const second = await newPage(browser);
  await test.step('the invitee (another browser) follows the link, signs up with the invited address and accepts', async () => {
    await second.goto(invitationUrl);
    // The owner gave no name: the invitation names them by their address.
    await expect(second.getByTestId('invitation-summary')).toContainText(`${owner.email} invited you to join ${orgName} as Member.`);
    await expectAccessible(second, '/organization-invitation');
    await second.getByRole('button', { name: en.organizationInvitation.signUp }).click();
    await expect(second.getByLabel(en.fields.email)).toHaveValue(invitee.email);
    await second.getByLabel(en.fields.password, { exact: true }).fill(invitee.password);
    await second.getByRole('button', { name: en.signUp.submit, exact: true }).click();
    await second.getByRole('button', { name: en.organizationInvitation.accept }).click();
    await expect(second.getByText('You are now a member of')).toContainText(orgName);
  });

  await test.step('the owner sees the new member, no pending invitation, and makes them an admin', async () => {
    await page.reload();
    await expect(member(page, invitee.email)).toBeVisible();
    await expect(page.getByText(to.noInvitations)).toBeVisible();
    const role = member(page, invitee.email).getByRole('combobox');
    await expect(role).toHaveValue('org:member');
    await role.selectOption('org:admin');
    await expect(role).toHaveValue('org:admin');
    await page.reload();
    await expect(member(page, invitee.email).getByRole('combobox')).toHaveValue('org:admin');
    await docScreenshot(page, 'hosted-organization-profile');
  });

  await test.step('the invitee switches to the organization, sees their new role, and leaves it', async () => {
    await second.getByRole('button', { name: en.organizationInvitation.continue }).click();
    await expect(second.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
    await switcher(second).click();
    await second.getByRole('list', { name: to.switchTo }).getByRole('button', { name: orgName }).click();
    await expect(switcher(second)).toContainText(orgName);
    await second.getByRole('link', { name: to.manage }).click();
    await expect(second.getByText(to.yourRole.replace('{role}', 'Admin'))).toBeVisible();
    await expectAccessible(second, '/organization (member)');
    await second.getByRole('button', { name: to.leave }).click();
    await second.getByRole('dialog').getByRole('button', { name: to.leave }).click();
    await expect(second.getByRole('heading', { name: en.profile.title, level: 1 })).toBeVisible();
    await expect(switcher(second)).toContainText(to.personal);
    await switcher(second).click();
    await expect(second.getByRole('list', { name: to.switchTo }).getByRole('button', { name: orgName })).toHaveCount(0);
  });

  await test.step('the owner’s list no longer shows the invitee; the BAPI agrees', async () => {
    await page.reload();
    await expect(page.getByRole('list', { name: to.membersTitle }).getByRole('listitem')).toHaveCount(1);
    await expect(member(page, invitee.email)).toHaveCount(0);
    const orgs = await bapi<{ data: Array<{ id: string; name: string; members_count: number }> }>(
      instance.secret,
      'GET',
      '/v1/organizations',
    );
    expect(orgs.data.map((o) => [o.name, o.members_count])).toEqual([[orgName, 1]]);
  });

  await test.step('the organization profile on a phone and in dark mode', async () => {
    const url = page.url();
    const cookies = await page.context().cookies();
    for (const [label, options] of [
      ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 }],
      ['dark', { viewport: { width: 1200, height: 900 }, colorScheme: 'dark' as const }],
    ] as const) {
      const context = await browser.newContext(options);
      await context.addCookies(cookies);
      const p = await context.newPage();
      await p.goto(url);
      await expect(p.getByRole('heading', { name: orgName, level: 1 })).toBeVisible();
      await expect(p.getByRole('list', { name: to.domainsTitle })).toContainText(domain);
      if (label === 'phone') await expectNoHorizontalScroll(p);
      else await expectAccessible(p, '/organization (dark)');
      await docScreenshot(p, `hosted-organization-profile-${label}`);
      await context.close();
    }
  });
});
