import { createClerkClient } from '@clerk/backend';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, totpCode } from '../../../testing/fapi-helpers';
import { required } from '../../../testing/requirements';
import {
  CHROMIUM,
  clerkState,
  codeEmailedTo,
  hasChromiumBinary,
  inPage,
  signIn,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * Clerk's prebuilt components (`@clerk/ui` 1.34's browser bundle, passed to `Clerk.load({ ui })`)
 * acting against an instance's FAPI through clerk-js, driven through their screens as a user does.
 */
const hasChromium = required(`Chromium at ${CHROMIUM}`, hasChromiumBinary(), 'the clerk-js tests in Chromium');

let x: ClerkBrowserHarness;
beforeAll(async () => {
  if (hasChromium) x = await startClerkBrowserHarness({ settings: { name_required: false } });
}, 120_000);
afterAll(async () => {
  await x?.close();
});

const PASSWORD = 'correct horse battery staple 42';
let seq = 0;
const email = (tag: string) => `clerkui-${tag}-${++seq}-${Date.now()}@example.com`;

async function signedInWithUi(tag: string) {
  const address = email(tag);
  const userId = await createTestUser(x.h, x.inst, { email_address: [address], password: PASSWORD });
  const { context, page } = await x.openApp({ ui: true });
  await signIn(page, address, PASSWORD);
  return { userId, address, context, page };
}

/** The active organization as clerk-js and its session token say. */
const activeOrganization = (page: Page) =>
  inPage(
    page,
    async (clerk) => {
      const token = (await clerk.session.getToken({ skipCache: true })) as string;
      const claims = JSON.parse(atob(token.split('.')[1]!.replace(/-/g, '+').replace(/_/g, '/'))) as { org_id?: string };
      return {
        name: (clerk.organization?.name as string | undefined) ?? null,
        id: (clerk.organization?.id as string | undefined) ?? null,
        tokenOrg: claims.org_id ?? null,
      };
    },
    null,
  );

/** The switcher's button, showing the active organization (or the personal account). */
const trigger = (page: Page) => page.locator('.cl-organizationSwitcherTrigger');
const popover = (page: Page) => page.locator('.cl-organizationSwitcherPopoverCard');

/**
 * Through the switcher's "Create organization": the name, then the invitation step, its role
 * picker filled from the instance's roles (Member, the default), which invites `invite` or is skipped.
 */
async function createThroughSwitcher(page: Page, name: string, invite?: string) {
  await trigger(page).click();
  await popover(page).getByText('Create organization').click();
  await page.locator('input[name="name"]').fill(name);
  await page.getByRole('button', { name: 'Create organization' }).last().click();
  await page.getByText('Invite new members').waitFor({ timeout: 15_000 });
  await page.getByText('Member', { exact: true }).waitFor({ timeout: 15_000 });
  if (!invite) return page.getByRole('button', { name: 'Skip' }).click();
  await page.getByPlaceholder('example@email.com', { exact: false }).fill(invite);
  await page.getByRole('button', { name: 'Send invitations' }).click();
  await page.getByText('Invitations successfully sent').waitFor({ timeout: 15_000 });
  await page.getByRole('button', { name: 'Finish' }).click();
}

describe.skipIf(!hasChromium)('Clerk’s prebuilt UI: the organization switcher', () => {
  it('mountOrganizationSwitcher: creates two organizations through its screens, switches between them and back to the personal account', async () => {
    const { context, page } = await signedInWithUi('switcher');
    await inPage(page, async (clerk) => clerk.mountOrganizationSwitcher(document.getElementById('app')), null);
    await page.getByText('Personal account').waitFor({ timeout: 15_000 });

    const invited = email('switcher-invited');
    await createThroughSwitcher(page, 'Switch Co', invited);
    await expect.poll(() => trigger(page).innerText(), { timeout: 15_000 }).toContain('Switch Co');
    const first = await activeOrganization(page);
    expect(first).toMatchObject({ name: 'Switch Co', id: expect.stringMatching(/^org_/) });
    expect(first.tokenOrg).toBe(first.id);
    const backend = createClerkClient({ secretKey: x.inst.secret, apiUrl: x.apiUrl, apiVersion: 'v1', telemetry: { disabled: true } });
    const invitations = await backend.organizations.getOrganizationInvitationList({ organizationId: first.id!, status: ['pending'] });
    expect(invitations.data.map((i) => [i.emailAddress, i.role])).toEqual([[invited, 'org:member']]);

    await createThroughSwitcher(page, 'Second Org');
    await expect.poll(() => trigger(page).innerText(), { timeout: 15_000 }).toContain('Second Org');
    expect((await activeOrganization(page)).name).toBe('Second Org');

    // Switch back through the list: the other organization, then the personal account.
    await trigger(page).click();
    await popover(page).getByText('Switch Co').click();
    await expect.poll(() => trigger(page).innerText(), { timeout: 15_000 }).toContain('Switch Co');
    expect(await activeOrganization(page)).toEqual(first);
    await trigger(page).click();
    await popover(page).getByText('Personal account').click();
    await expect.poll(() => trigger(page).innerText(), { timeout: 15_000 }).toContain('Personal account');
    expect(await activeOrganization(page)).toEqual({ name: null, id: null, tokenOrg: null });
    await context.close();
  }, 120_000);
});

describe.skipIf(!hasChromium)('Clerk’s prebuilt UI: the organization profile', () => {
  it('mountOrganizationProfile: renames the organization through its General page and lists the members', async () => {
    const { context, page, address } = await signedInWithUi('orgprofile');
    await inPage(
      page,
      async (clerk) => {
        const org = await clerk.createOrganization({ name: 'Profile Co' });
        await clerk.setActive({ organization: org.id });
      },
      null,
    );
    await inPage(page, async (clerk) => clerk.mountOrganizationProfile(document.getElementById('app')), null);
    // It opens on General: the organization's name, then renamed through "Update profile".
    await page.getByText('Profile Co').first().waitFor({ timeout: 15_000 });
    await page.getByRole('button', { name: /update profile/i }).click();
    await page.locator('input[name="name"]').fill('Renamed Co');
    await page.getByRole('button', { name: /^save$/i }).click();
    await expect.poll(async () => (await activeOrganization(page)).name, { timeout: 15_000 }).toBe('Renamed Co');
    // Members: the signed-in user, the organization's admin.
    await page.getByText('Members', { exact: true }).first().click();
    await page.getByText(address).first().waitFor({ timeout: 15_000 });
    const backend = createClerkClient({ secretKey: x.inst.secret, apiUrl: x.apiUrl, apiVersion: 'v1', telemetry: { disabled: true } });
    const id = (await activeOrganization(page)).id!;
    expect((await backend.organizations.getOrganization({ organizationId: id })).name).toBe('Renamed Co');
    await context.close();
  }, 120_000);
});

describe.skipIf(!hasChromium)('Clerk’s prebuilt UI: the user profile', () => {
  it('mountUserProfile: adds an email address with its emailed code, changes the password, enables TOTP', async () => {
    const { context, page, address, userId } = await signedInWithUi('profile');
    await inPage(page, async (clerk) => clerk.mountUserProfile(document.getElementById('app')), null);
    await page.getByText(address).first().waitFor({ timeout: 15_000 });

    // An email address: the form, the code emailed to it, then listed.
    const added = email('profile-added');
    await page.getByRole('button', { name: 'Add email address' }).click();
    await page.locator('input[name="emailAddress"]').fill(added);
    await page.getByRole('button', { name: 'Add', exact: true }).click();
    await page.getByText('Verify email address').waitFor({ timeout: 15_000 });
    await page.keyboard.type(await codeEmailedTo(x, added));
    await page.getByText('Verify email address').waitFor({ state: 'hidden', timeout: 15_000 });
    await page.getByText(added).first().waitFor({ timeout: 15_000 });
    const backend = createClerkClient({ secretKey: x.inst.secret, apiUrl: x.apiUrl, apiVersion: 'v1', telemetry: { disabled: true } });
    const emails = (await backend.users.getUser(userId)).emailAddresses.map((e) => [e.emailAddress, e.verification?.status]);
    expect(emails).toContainEqual([added, 'verified']);

    // The password, on the security page.
    await page.getByText('Security', { exact: true }).click();
    await page.getByRole('button', { name: /Update password|Change password/ }).click();
    const NEW = 'another horse battery staple 43';
    await page.locator('input[name="currentPassword"]').fill(PASSWORD);
    await page.locator('input[name="newPassword"]').fill(NEW);
    await page.locator('input[name="confirmPassword"]').fill(NEW);
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('input[name="newPassword"]').waitFor({ state: 'hidden', timeout: 15_000 });
    const other = await x.openApp();
    await signIn(other.page, address, NEW);
    expect((await clerkState(other.page)).userId).toBe(userId);
    await other.context.close();

    // TOTP: the authenticator app's secret, a current code, the backup codes.
    await page.getByRole('button', { name: 'Add two-step verification' }).click();
    await page.getByText('Authenticator application').click();
    await page.getByText('Can’t scan QR code?').click();
    // The key is shown in a read-only field to copy.
    const secret = /\b[A-Z2-7]{32}\b/.exec(await page.locator('#app').innerHTML())?.[0];
    expect(secret).toBeDefined();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.keyboard.type(totpCode(x.h, secret!));
    await page.getByText('Two-step verification is now enabled').waitFor({ timeout: 15_000 });
    const shown = (await page.locator('#app').innerText()).match(/\b[a-z0-9]{10}\b/g) ?? [];
    expect(shown.length).toBeGreaterThanOrEqual(10);
    await page.getByRole('button', { name: 'Finish' }).click();
    await page.getByText('Authenticator application').first().waitFor({ timeout: 15_000 });
    const mfa = await inPage(
      page,
      async (clerk) => {
        const u = await clerk.user.reload();
        return { totp: u.totpEnabled as boolean, backupCodes: u.backupCodeEnabled as boolean, twoFactor: u.twoFactorEnabled as boolean };
      },
      null,
    );
    expect(mfa).toEqual({ totp: true, backupCodes: true, twoFactor: true });
    // The next sign-in asks for the second factor.
    const next = await x.openApp();
    const status = await inPage(
      next.page,
      async (clerk, { a, p }) => (await clerk.client.signIn.create({ identifier: a, password: p })).status as string,
      { a: address, p: NEW },
    );
    expect(status).toBe('needs_second_factor');
    await next.context.close();
    await context.close();
  }, 120_000);
});
