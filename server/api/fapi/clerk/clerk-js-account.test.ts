import { createClerkClient, verifyToken } from '@clerk/backend';
import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { sessions } from '../../../db/schema';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestUser, totpCode } from '../../../testing/fapi-helpers';
import { required } from '../../../testing/requirements';
import {
  apiError,
  CHROMIUM,
  clerkState,
  codeEmailedTo,
  hasChromiumBinary,
  createActiveOrganization,
  inPage,
  signIn,
  signedInClerkUser,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * The account half of `@clerk/clerk-js` 6.x (its browser bundle from npm, unchanged, in
 * Chromium) against an instance's FAPI: a user's organizations, members, invitations and
 * domains through clerk-js's organization resources; phone numbers, password, profile image
 * and TOTP through `clerk.user`; several sessions on one client (`_clerk_session_id`); JWT
 * templates.
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
const email = (tag: string) => `clerkjs-${tag}-${++seq}-${Date.now()}@example.com`;

/** A new user signed in through clerk-js in a browser of their own. */
const signedIn = (tag: string, address = email(tag)) => signedInClerkUser(x, address, PASSWORD);

const createOrganization = createActiveOrganization;

describe.skipIf(!hasChromium)('organizations through clerk-js', () => {
  it('invitations: an admin invites, lists and revokes; the invitee sees the pending one and accepts it', async () => {
    const admin = await signedIn('org-admin');
    const invitee = await signedIn('org-invitee');
    const orgId = await createOrganization(admin.page, 'Invitations Inc');

    const revokedAddress = email('org-revoked');
    const listed = await inPage(
      admin.page,
      async (clerk, { to, revoked }) => {
        const org = clerk.organization;
        const inv = await org.inviteMember({ emailAddress: to, role: 'org:member' });
        const other = await org.inviteMember({ emailAddress: revoked, role: 'org:member' });
        const afterRevoke = await other.revoke();
        const pending = await org.getInvitations({ status: ['pending'] });
        return {
          created: { id: inv.id, status: inv.status, role: inv.role, email: inv.emailAddress, org: inv.organizationId },
          revoked: afterRevoke.status,
          pending: { total: pending.total_count, emails: pending.data.map((i: { emailAddress: string }) => i.emailAddress) },
        };
      },
      { to: invitee.address, revoked: revokedAddress },
    );
    expect(listed).toMatchObject({
      created: { id: expect.stringMatching(/^orginv_/), status: 'pending', role: 'org:member', email: invitee.address, org: orgId },
      revoked: 'revoked',
      pending: { total: 1, emails: [invitee.address] },
    });

    const joined = await inPage(
      invitee.page,
      async (clerk) => {
        const mine = await clerk.user.getOrganizationInvitations();
        const inv = mine.data[0];
        const seen = { total: mine.total_count, org: inv?.publicOrganizationData.name, status: inv?.status };
        const accepted = await inv.accept();
        await clerk.user.reload();
        return {
          seen,
          accepted: accepted.status,
          memberships: clerk.user.organizationMemberships.map((m: { organization: { id: string }; role: string }) => [
            m.organization.id,
            m.role,
          ]),
        };
      },
      null,
    );
    expect(joined).toEqual({
      seen: { total: 1, org: 'Invitations Inc', status: 'pending' },
      accepted: 'accepted',
      memberships: [[orgId, 'org:member']],
    });
    await admin.context.close();
    await invitee.context.close();
  }, 90_000);

  it('memberships: the admin lists members (Clerk’s pages), changes a role and removes a member; the member sees it', async () => {
    const admin = await signedIn('mem-admin');
    const member = await signedIn('mem-member');
    const orgId = await createOrganization(admin.page, 'Members Ltd');
    // The member joins by an invitation (as above), made through the backend SDK this time.
    const clerkBackend = createClerkClient({ secretKey: x.inst.secret, apiUrl: x.apiUrl, apiVersion: 'v1', telemetry: { disabled: true } });
    await clerkBackend.organizations.createOrganizationMembership({ organizationId: orgId, userId: member.userId, role: 'org:member' });

    const lists = await inPage(
      admin.page,
      async (clerk) => {
        const org = clerk.organization;
        const all = await org.getMemberships();
        const second = await org.getMemberships({ pageSize: 1, initialPage: 2 });
        return {
          total: all.total_count,
          roles: all.data
            .map((m: { publicUserData: { identifier: string }; role: string }) => [m.publicUserData.identifier, m.role])
            .sort(),
          page2: { total: second.total_count, size: second.data.length },
        };
      },
      null,
    );
    expect(lists.total).toBe(2);
    expect(lists.roles).toEqual(
      [
        [admin.address, 'org:admin'],
        [member.address, 'org:member'],
      ].sort(),
    );
    expect(lists.page2).toEqual({ total: 2, size: 1 });

    const promoted = await inPage(
      admin.page,
      async (clerk, userId) => {
        const { data } = await clerk.organization.getMemberships();
        const m = data.find((x: { publicUserData: { userId: string } }) => x.publicUserData.userId === userId);
        return (await m.update({ role: 'org:admin' })).role as string;
      },
      member.userId,
    );
    expect(promoted).toBe('org:admin');
    const memberRole = await inPage(
      member.page,
      async (clerk) => {
        await clerk.user.reload();
        return clerk.user.organizationMemberships.map((m: { role: string }) => m.role);
      },
      null,
    );
    expect(memberRole).toEqual(['org:admin']);

    const after = await inPage(
      admin.page,
      async (clerk, userId) => {
        await clerk.organization.removeMember(userId);
        const { total_count } = await clerk.organization.getMemberships();
        return total_count as number;
      },
      member.userId,
    );
    expect(after).toBe(1);
    expect(await inPage(member.page, async (clerk) => (await clerk.user.reload()).organizationMemberships.length as number, null)).toBe(0);
    await admin.context.close();
    await member.context.close();
  }, 90_000);

  it('domains: add one, verify it with the code emailed to an address at it, change its enrollment mode, remove it', async () => {
    const admin = await signedIn('dom-admin');
    await createOrganization(admin.page, 'Domains Co');
    const domain = `clerkjs-${++seq}-${Date.now()}.example.org`;
    const created = await inPage(
      admin.page,
      async (clerk, { domain }) => {
        const d = await clerk.organization.createDomain(domain);
        await d.prepareAffiliationVerification({ affiliationEmailAddress: `it@${domain}` });
        const list = await clerk.organization.getDomains();
        return {
          id: d.id,
          name: d.name,
          status: d.verification?.status,
          listed: list.data.map((x: { name: string }) => x.name),
          total: list.total_count,
        };
      },
      { domain },
    );
    expect(created).toMatchObject({
      id: expect.stringMatching(/^orgdmn_|^dmn_|^od_/),
      name: domain,
      status: 'unverified',
      listed: [domain],
      total: 1,
    });

    const code = await codeEmailedTo(x, `it@${domain}`);
    const wrong = await apiError(
      admin.page,
      async (clerk) => (await clerk.organization.getDomains()).data[0].attemptAffiliationVerification({ code: '000000' }),
      null,
    );
    expect(wrong).toMatchObject({ codes: ['form_code_incorrect'] });
    const verified = await inPage(
      admin.page,
      async (clerk, code) => {
        const [d] = (await clerk.organization.getDomains()).data;
        // Each call updates the same resource object.
        const status = (await d.attemptAffiliationVerification({ code })).affiliationVerification.status;
        const mode = (await d.updateEnrollmentMode({ enrollmentMode: 'automatic_suggestion' })).enrollmentMode;
        await d.delete();
        return { status, mode, left: (await clerk.organization.getDomains()).total_count };
      },
      code,
    );
    expect(verified).toEqual({ status: 'verified', mode: 'automatic_suggestion', left: 0 });
    await admin.context.close();
  }, 90_000);
});

describe.skipIf(!hasChromium)('the user through clerk-js', () => {
  it('a phone number added and verified with the texted code', async () => {
    const { context, page } = await signedIn('phone');
    const phone = `+1555${String(Date.now()).slice(-7)}`;
    await inPage(
      page,
      async (clerk, phone) => {
        const p = await clerk.user.createPhoneNumber({ phoneNumber: phone });
        await p.prepareVerification();
      },
      phone,
    );
    await expect.poll(async () => (await x.h.smsOutbox(phone)).length, { timeout: 10_000 }).toBeGreaterThan(0);
    const code = String(((await x.h.smsOutbox(phone))[0]!.data as { code: string }).code);
    const seen = await inPage(
      page,
      async (clerk, { phone, code }) => {
        const p = clerk.user.phoneNumbers.find((x: { phoneNumber: string }) => x.phoneNumber === phone);
        const v = await p.attemptVerification({ code });
        await clerk.user.reload();
        return { status: v.verification.status, numbers: clerk.user.phoneNumbers.map((x: { phoneNumber: string }) => x.phoneNumber) };
      },
      { phone, code },
    );
    expect(seen).toEqual({ status: 'verified', numbers: [phone] });
    await context.close();
  }, 60_000);

  it('updatePassword: a wrong current password is form_password_incorrect; then only the new password signs in', async () => {
    const { context, page, address } = await signedIn('pwd');
    const NEW = 'another horse battery staple 43';
    const wrong = await apiError(
      page,
      (clerk, p: string) => clerk.user.updatePassword({ currentPassword: 'not it at all', newPassword: p }),
      NEW,
    );
    expect(wrong).toMatchObject({ codes: ['form_password_incorrect'] });
    await inPage(
      page,
      async (clerk, p) =>
        clerk.user.updatePassword({ currentPassword: 'correct horse battery staple 42', newPassword: p, signOutOfOtherSessions: false }),
      NEW,
    );
    // This browser stays signed in.
    expect((await clerkState(page)).email).toBe(address);

    const other = await x.openApp();
    const old = await apiError(
      other.page,
      (clerk, { a, p }: { a: string; p: string }) => clerk.client.signIn.create({ identifier: a, password: p }),
      { a: address, p: PASSWORD },
    );
    expect(old).toMatchObject({ codes: ['form_password_incorrect'] });
    await signIn(other.page, address, NEW);
    expect((await clerkState(other.page)).email).toBe(address);
    await other.context.close();
    await context.close();
  }, 60_000);

  it('setProfileImage: the image is the user’s, served at its public URL', async () => {
    const { context, page, userId } = await signedIn('img');
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const seen = await inPage(
      page,
      async (clerk, png) => {
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        const image = await clerk.user.setProfileImage({ file: new Blob([bytes], { type: 'image/png' }) });
        await clerk.user.reload();
        return { publicUrl: image.publicUrl as string, hasImage: clerk.user.hasImage as boolean, imageUrl: clerk.user.imageUrl as string };
      },
      PNG,
    );
    expect(seen.hasImage).toBe(true);
    expect(seen.imageUrl).toBe(seen.publicUrl);
    expect(seen.imageUrl).toContain(`/v1/users/${userId}/profile_image/`);
    const served = await fetch(seen.imageUrl);
    expect(served.status).toBe(200);
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);
    await context.close();
  }, 60_000);
});

describe.skipIf(!hasChromium)('sessions and tokens through clerk-js', () => {
  it('two tabs, two accounts: each tab acts for its own session (_clerk_session_id); a session of another client is not found', async () => {
    const [a, b] = [email('tabs-a'), email('tabs-b')];
    const ids = [
      await createTestUser(x.h, x.inst, { email_address: [a], password: PASSWORD }),
      await createTestUser(x.h, x.inst, { email_address: [b], password: PASSWORD }),
    ];
    const { context, page } = await x.openApp();
    await signIn(page, a, PASSWORD);
    await signIn(page, b, PASSWORD);
    const sessions = (await clerkState(page)).sessions;
    const sessionOf = async (p: Page, userId: string) =>
      inPage(
        p,
        async (clerk, userId) => clerk.client.sessions.find((s: { user: { id: string } }) => s.user.id === userId).id as string,
        userId,
      );
    // Tab 1 acts as A; a second tab of the same browser then makes B the client's last active session.
    await inPage(page, async (clerk, s) => clerk.setActive({ session: s }), await sessionOf(page, ids[0]!));
    const tab2 = await context.newPage();
    await tab2.goto(x.appOrigin);
    await tab2.waitForFunction(() => 'Clerk' in window);
    await inPage(tab2, async (clerk) => clerk.load({ telemetry: false }), null);
    await inPage(tab2, async (clerk, s) => clerk.setActive({ session: s }), await sessionOf(tab2, ids[1]!));

    // Tab 1 updates its user: A, not the client's last active one.
    const named = await inPage(
      page,
      async (clerk) => {
        const u = await clerk.user.update({ firstName: 'Tab-one' });
        return { id: u.id as string, first: u.firstName as string };
      },
      null,
    );
    expect(named).toEqual({ id: ids[0], first: 'Tab-one' });
    const backend = createClerkClient({ secretKey: x.inst.secret, apiUrl: x.apiUrl, apiVersion: 'v1', telemetry: { disabled: true } });
    expect((await backend.users.getUser(ids[0]!)).firstName).toBe('Tab-one');
    expect((await backend.users.getUser(ids[1]!)).firstName).not.toBe('Tab-one');
    expect(sessions).toHaveLength(2);

    // A session id of another browser's client names nothing here.
    const stranger = await signedIn('tabs-stranger');
    const strangerSession = (await clerkState(stranger.page)).sessionId!;
    const status = await page.evaluate(
      async ({ fapi, sid }) =>
        (
          await fetch(`${fapi}/v1/me?__clerk_api_version=2026-08-20&_clerk_js_version=6.40.0&_clerk_session_id=${sid}`, {
            credentials: 'include',
          })
        ).status,
      { fapi: x.fapiUrl, sid: strangerSession },
    );
    expect(status).toBe(404);
    await stranger.context.close();
    await context.close();
  }, 90_000);

  it('getToken({ template }): the named JWT template’s claims, verified by verifyToken; an unknown name is 404 naming it (Clerk’s error shape)', async () => {
    const { context, page, userId, address } = await signedIn('tpl');
    const created = await x.h.call('POST', '/v1/jwt_templates', {
      key: x.inst.secret,
      body: { name: 'convex', claims: { aud: 'convex', email: '{{user.primary_email_address}}', tier: 'gold' }, lifetime: 120 },
    });
    expect(created.status).toBe(200);
    const jwt = await inPage(page, async (clerk) => clerk.session.getToken({ template: 'convex', skipCache: true }), null);
    const claims = await verifyToken(jwt, {
      secretKey: x.inst.secret,
      apiUrl: x.apiUrl,
      apiVersion: 'v1',
      authorizedParties: [x.appOrigin],
    });
    expect(claims).toMatchObject({ sub: userId, aud: 'convex', email: address, tier: 'gold', azp: x.appOrigin });
    expect(claims.exp - claims.iat).toBe(120);
    expect(claims).not.toHaveProperty('sid');
    const err = await apiError(page, (clerk) => clerk.session.getToken({ template: 'supabase', skipCache: true }), null);
    expect(err).toMatchObject({
      status: 404,
      codes: ['resource_not_found'],
      params: ['template'],
      long: expect.stringContaining('supabase'),
    });
    await context.close();
  }, 60_000);
});

// Last: a TOTP code moves the server's test clock forward (30 s), ahead of the browser's.
describe.skipIf(!hasChromium)('TOTP enrollment through clerk-js', () => {
  it('createTOTP, verifyTOTP with a current code: backup codes once, totpEnabled; the next sign-in asks for the second factor', async () => {
    const { context, page, address } = await signedIn('totp-enroll');
    const created = await inPage(
      page,
      async (clerk) => {
        const t = await clerk.user.createTOTP();
        return { secret: t.secret as string, uri: t.uri as string, verified: t.verified as boolean };
      },
      null,
    );
    expect(created).toMatchObject({
      secret: expect.stringMatching(/^[A-Z2-7]+=*$/),
      uri: expect.stringMatching(/^otpauth:\/\/totp\//),
      verified: false,
    });
    const wrong = await apiError(page, (clerk) => clerk.user.verifyTOTP({ code: '000000' }), null);
    expect(wrong).toMatchObject({ codes: ['form_code_incorrect'] });
    const verified = await inPage(
      page,
      async (clerk, code) => {
        const t = await clerk.user.verifyTOTP({ code });
        await clerk.user.reload();
        return {
          verified: t.verified as boolean,
          backupCodes: (t.backupCodes as string[]).length,
          totp: clerk.user.totpEnabled as boolean,
          twoFactor: clerk.user.twoFactorEnabled as boolean,
        };
      },
      totpCode(x.h, created.secret),
    );
    expect(verified).toEqual({ verified: true, backupCodes: 10, totp: true, twoFactor: true });

    const other = await x.openApp();
    const status = await inPage(
      other.page,
      async (clerk, { a, p }) => (await clerk.client.signIn.create({ identifier: a, password: p })).status as string,
      { a: address, p: PASSWORD },
    );
    expect(status).toBe('needs_second_factor');
    await other.context.close();
    await context.close();
  }, 60_000);

  it('reverification: createBackupCode is 403 session_reverification_required until the session is verified again with TOTP (form_code_incorrect for a wrong code); then new codes, the token’s fva passes has({ reverification: "strict" }), and disableTOTP', async () => {
    const { context, page, userId } = await signedIn('reverify');
    const secret = await inPage(page, async (clerk) => (await clerk.user.createTOTP()).secret as string, null);
    await inPage(page, async (clerk, code) => clerk.user.verifyTOTP({ code }), totpCode(x.h, secret));
    // Signed in (and enrolled) 20 minutes ago, as far as the session knows.
    const sessionId = (await clerkState(page)).sessionId!;
    const longAgo = x.h.clock.now() - 20 * 60_000;
    await x.h.runtime.deps.db
      .update(sessions)
      .set({ firstFactorVerifiedAt: longAgo, secondFactorVerifiedAt: longAgo })
      .where(eq(sessions.id, sessionId));

    const refused = await apiError(page, (clerk) => clerk.user.createBackupCode(), null);
    expect(refused).toMatchObject({ status: 403, codes: ['session_reverification_required'] });
    const started = await inPage(
      page,
      async (clerk) => {
        const v = await clerk.session.startVerification({ level: 'second_factor' });
        return {
          status: v.status as string,
          level: v.level as string,
          second: v.supportedSecondFactors.map((f: { strategy: string }) => f.strategy) as string[],
        };
      },
      null,
    );
    expect(started).toEqual({ status: 'needs_second_factor', level: 'second_factor', second: ['totp', 'backup_code'] });
    const wrong = await apiError(
      page,
      (clerk) => clerk.session.attemptSecondFactorVerification({ strategy: 'totp', code: '000000' }),
      null,
    );
    expect(wrong).toMatchObject({ status: 422, codes: ['form_code_incorrect'] });
    // The next step's code: the enrollment's was this step's (a code is accepted once).
    const done = await inPage(
      page,
      async (clerk, code) => {
        const v = await clerk.session.attemptSecondFactorVerification({ strategy: 'totp', code });
        return { status: v.status as string, age: v.session.factorVerificationAge as number[] };
      },
      totpCode(x.h, secret, 1),
    );
    expect(done).toEqual({ status: 'complete', age: [20, 0] });

    const codes = await inPage(page, async (clerk) => (await clerk.user.createBackupCode()).codes.length as number, null);
    expect(codes).toBe(10);
    const jwt = await inPage(page, async (clerk) => clerk.session.getToken({ skipCache: true }) as Promise<string>, null);
    expect(decodeJwt(jwt).fva).toEqual([20, 0]);
    const backend = createClerkClient({
      secretKey: x.inst.secret,
      publishableKey: x.inst.publishableKey,
      apiUrl: x.apiUrl,
      apiVersion: 'v1',
      telemetry: { disabled: true },
    });
    const state = await backend.authenticateRequest(new Request(`${x.appOrigin}/app/x`, { headers: { authorization: `Bearer ${jwt}` } }), {
      clockSkewInMs: 300_000,
    });
    const auth = state.toAuth();
    expect(auth?.userId).toBe(userId);
    expect((auth as { has(p: object): boolean }).has({ reverification: 'strict' })).toBe(true);

    const after = await inPage(
      page,
      async (clerk) => {
        await clerk.user.disableTOTP();
        await clerk.user.reload();
        return clerk.user.totpEnabled as boolean;
      },
      null,
    );
    expect(after).toBe(false);
    await context.close();
  }, 60_000);
});
