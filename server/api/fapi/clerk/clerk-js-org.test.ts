import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bapiWith, createTestUser } from '../../../testing/fapi-helpers';
import { required } from '../../../testing/requirements';
import {
  apiError,
  CHROMIUM,
  hasChromiumBinary,
  createActiveOrganization,
  inPage,
  signedInClerkUser,
  startClerkBrowserHarness,
  type ClerkBrowserHarness,
} from '../../../testing/clerk-browser';

/**
 * An organization's admin work through `@clerk/clerk-js` 6.x (its browser bundle from npm,
 * unchanged, in Chromium) against an instance's FAPI: `organization.addMember`, `getDomain`,
 * `setLogo`, and a plain member refused each (Clerk's error shape).
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
const signedIn = (tag: string) => signedInClerkUser(x, email(tag), PASSWORD);

const createOrganization = createActiveOrganization;

/** Makes the organization active in a member's browser (they joined after the page loaded). */
const activate = (page: Page, orgId: string) =>
  inPage(
    page,
    async (clerk, orgId) => {
      await clerk.user.reload();
      await clerk.setActive({ organization: orgId });
      return clerk.organization?.id as string;
    },
    orgId,
  );

describe.skipIf(!hasChromium)('an organization’s admin through clerk-js', () => {
  it('addMember: a user of the instance joins with the role given; again is already_a_member_in_organization; a plain member is refused', async () => {
    const admin = await signedIn('add-admin');
    const member = await signedIn('add-member');
    const later = await createTestUser(x.h, x.inst, { email_address: [email('add-later')], password: PASSWORD });
    const orgId = await createOrganization(admin.page, 'Direct Members');

    const added = await inPage(
      admin.page,
      async (clerk, userId) => {
        const m = await clerk.organization.addMember({ userId, role: 'org:member' });
        const list = await clerk.organization.getMemberships();
        return {
          id: m.id as string,
          role: m.role as string,
          userId: m.publicUserData?.userId as string,
          org: m.organization?.id as string,
          total: list.total_count as number,
        };
      },
      member.userId,
    );
    expect(added).toEqual({ id: expect.stringMatching(/^orgmem_/), role: 'org:member', userId: member.userId, org: orgId, total: 2 });
    // The member sees it on their next reload.
    expect(await activate(member.page, orgId)).toBe(orgId);

    const again = await apiError(
      admin.page,
      (clerk, userId: string) => clerk.organization.addMember({ userId, role: 'org:member' }),
      member.userId,
    );
    expect(again).toMatchObject({ status: 409, codes: ['already_a_member_in_organization'], params: ['user_id'] });
    const badRole = await apiError(
      admin.page,
      (clerk, userId: string) => clerk.organization.addMember({ userId, role: 'org:overlord' }),
      later,
    );
    expect(badRole).toMatchObject({ status: 422, params: ['role'] });
    const nobody = await apiError(admin.page, (clerk) => clerk.organization.addMember({ userId: 'user_nobody', role: 'org:member' }), null);
    expect(nobody).toMatchObject({ status: 422, params: ['user_id'] });

    // A plain member (org:member: no org:sys_memberships:manage) may not add anyone.
    const refused = await apiError(
      member.page,
      (clerk, userId: string) => clerk.organization.addMember({ userId, role: 'org:member' }),
      later,
    );
    expect(refused).toMatchObject({ status: 403, codes: ['not_allowed_access'] });
    expect(await inPage(admin.page, async (clerk) => (await clerk.organization.getMemberships()).total_count as number, null)).toBe(2);
    await admin.context.close();
    await member.context.close();
  }, 90_000);

  it('getDomain: one domain by its id; a plain member (no org:sys_domains:read) is refused', async () => {
    const admin = await signedIn('dom-admin');
    const member = await signedIn('dom-member');
    const orgId = await createOrganization(admin.page, 'One Domain');
    const name = `clerkjs-${++seq}-${Date.now()}.example.org`;
    const got = await inPage(
      admin.page,
      async (clerk, name) => {
        const created = await clerk.organization.createDomain(name);
        const d = await clerk.organization.getDomain({ domainId: created.id });
        return {
          id: d.id as string,
          created: created.id as string,
          name: d.name as string,
          org: d.organizationId as string,
          status: d.verification?.status as string,
          mode: d.enrollmentMode as string,
        };
      },
      name,
    );
    expect(got).toEqual({ id: got.created, created: got.created, name, org: orgId, status: 'unverified', mode: 'manual_invitation' });
    const unknown = await apiError(admin.page, (clerk) => clerk.organization.getDomain({ domainId: 'orgdmn_nothing' }), null);
    expect(unknown).toMatchObject({ status: 404, codes: ['resource_not_found'] });

    await inPage(admin.page, async (clerk, userId) => clerk.organization.addMember({ userId, role: 'org:member' }), member.userId);
    await activate(member.page, orgId);
    const refused = await apiError(member.page, (clerk, id: string) => clerk.organization.getDomain({ domainId: id }), got.id);
    expect(refused).toMatchObject({ status: 403, codes: ['not_allowed_access'] });
    await admin.context.close();
    await member.context.close();
  }, 90_000);

  it('setLogo: the admin uploads a file, clerk.organization.imageUrl is its public URL and the image is served; a plain member is refused; setLogo({ file: null }) removes it', async () => {
    const admin = await signedIn('logo-admin');
    const member = await signedIn('logo-member');
    const orgId = await createOrganization(admin.page, 'Logo Works');
    const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
    const seen = await inPage(
      admin.page,
      async (clerk, png) => {
        const before = clerk.organization.imageUrl as string;
        const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
        const org = await clerk.organization.setLogo({ file: new Blob([bytes], { type: 'image/png' }) });
        return {
          before,
          returned: org.imageUrl as string,
          hasImage: org.hasImage as boolean,
          active: clerk.organization.imageUrl as string,
        };
      },
      PNG,
    );
    expect(seen.before).toBe('');
    expect(seen.hasImage).toBe(true);
    expect(seen.returned).toContain(`/v1/organization_logos/${orgId}/`);
    // The answer's client carries the change: clerk.organization (the active one) shows it at once.
    expect(seen.active).toBe(seen.returned);
    const served = await fetch(seen.returned);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(PNG, 'base64'))).toBe(true);

    // A plain member (no org:sys_profile:manage) may not change it.
    await inPage(admin.page, async (clerk, userId) => clerk.organization.addMember({ userId, role: 'org:member' }), member.userId);
    expect(await activate(member.page, orgId)).toBe(orgId);
    expect(await inPage(member.page, async (clerk) => clerk.organization.imageUrl as string, null)).toBe(seen.returned);
    const refused = await apiError(
      member.page,
      async (clerk) =>
        clerk.organization.setLogo({ file: new Blob(['<svg xmlns="http://www.w3.org/2000/svg"/>'], { type: 'image/svg+xml' }) }),
      null,
    );
    expect(refused).toMatchObject({ status: 403, codes: ['not_allowed_access'] });
    const notAnImage = await apiError(
      admin.page,
      async (clerk) => clerk.organization.setLogo({ file: new Blob(['<html></html>'], { type: 'image/png' }) }),
      null,
    );
    expect(notAnImage).toMatchObject({ status: 422, codes: ['form_param_format_invalid'] });

    const removed = await inPage(
      admin.page,
      async (clerk) => {
        const org = await clerk.organization.setLogo({ file: null });
        return { hasImage: org.hasImage as boolean, imageUrl: org.imageUrl as string, active: clerk.organization.imageUrl as string };
      },
      null,
    );
    expect(removed).toEqual({ hasImage: false, imageUrl: '', active: '' });
    expect((await fetch(seen.returned)).status).toBe(404);
    await admin.context.close();
    await member.context.close();
  }, 90_000);

  it('membership requests: a user of a verified automatic_suggestion domain accepts the suggestion, the admin lists the request and accepts it (or rejects another); a plain member may not see them', async () => {
    const admin = await signedIn('req-admin');
    const orgId = await createOrganization(admin.page, 'Requests Welcome');
    const domain = `req-${++seq}-${Date.now()}.example.org`;
    const bapi = bapiWith(x.h, x.inst);
    const d = await bapi.ok('POST', `/v1/organizations/${orgId}/domains`, { name: domain, enrollment_mode: 'automatic_suggestion' });
    await bapi.ok('PATCH', `/v1/organizations/${orgId}/domains/${d.id}`, { verified: true });

    // Two users of the domain: each is offered the organization and asks to join.
    const ask = async (tag: string) => {
      const u = await signedInClerkUser(x, `${tag}-${++seq}@${domain}`, PASSWORD);
      const asked = await inPage(
        u.page,
        async (clerk) => {
          const list = await clerk.user.getOrganizationSuggestions();
          const s = await list.data[0].accept();
          return {
            total: list.total_count as number,
            org: list.data[0].publicOrganizationData.id as string,
            status: s.status as string,
            memberships: clerk.user.organizationMemberships.length as number,
          };
        },
        null,
      );
      expect(asked).toEqual({ total: 1, org: orgId, status: 'accepted', memberships: 0 });
      // The accepted suggestion is no longer pending; asked for with its status (one or several), it is listed.
      const byStatus = await inPage(
        u.page,
        async (clerk) => {
          const statuses = async (status?: string | string[]) =>
            (await clerk.user.getOrganizationSuggestions(status ? { status } : undefined)).data.map((s: { status: string }) => s.status);
          return { plain: await statuses(), accepted: await statuses('accepted'), both: await statuses(['pending', 'accepted']) };
        },
        null,
      );
      expect(byStatus).toEqual({ plain: [], accepted: ['accepted'], both: ['accepted'] });
      return u;
    };
    const welcome = await ask('welcome');
    const turnedDown = await ask('turned-down');

    const listed = await inPage(
      admin.page,
      async (clerk) => {
        const list = await clerk.organization.getMembershipRequests();
        return {
          total: list.total_count as number,
          users: list.data.map((r: { publicUserData: { userId: string }; status: string; organizationId: string }) => [
            r.publicUserData.userId,
            r.status,
            r.organizationId,
          ]),
        };
      },
      null,
    );
    expect(listed).toEqual({
      total: 2,
      users: [
        [welcome.userId, 'pending', orgId],
        [turnedDown.userId, 'pending', orgId],
      ],
    });

    const answered = await inPage(
      admin.page,
      async (clerk, { welcome, turnedDown }) => {
        const list = await clerk.organization.getMembershipRequests();
        const byUser = (id: string) => list.data.find((r: { publicUserData: { userId: string } }) => r.publicUserData.userId === id);
        const accepted = await byUser(welcome).accept();
        const rejected = await byUser(turnedDown).reject();
        const after = await clerk.organization.getMembershipRequests();
        const members = await clerk.organization.getMemberships();
        return {
          accepted: accepted.status as string,
          rejected: rejected.status as string,
          left: after.total_count as number,
          members: members.total_count as number,
        };
      },
      { welcome: welcome.userId, turnedDown: turnedDown.userId },
    );
    expect(answered).toEqual({ accepted: 'accepted', rejected: 'revoked', left: 0, members: 2 });
    // Clerk's status filter: `revoked` (Latchkey's rejected) and `accepted` list the answered requests.
    const answeredLists = await inPage(
      admin.page,
      async (clerk) => {
        const users = async (status: string) =>
          (await clerk.organization.getMembershipRequests({ status })).data.map(
            (r: { publicUserData: { userId: string }; status: string }) => [r.publicUserData.userId, r.status],
          );
        return { revoked: await users('revoked'), accepted: await users('accepted') };
      },
      null,
    );
    expect(answeredLists).toEqual({ revoked: [[turnedDown.userId, 'revoked']], accepted: [[welcome.userId, 'accepted']] });

    // The accepted user is a member on their next reload; the rejected one is not.
    expect(await activate(welcome.page, orgId)).toBe(orgId);
    expect(
      await inPage(
        turnedDown.page,
        async (clerk) => {
          await clerk.user.reload();
          return clerk.user.organizationMemberships.length as number;
        },
        null,
      ),
    ).toBe(0);

    // A plain member (no org:sys_memberships:manage) may not list or answer requests.
    const refused = await apiError(welcome.page, (clerk) => clerk.organization.getMembershipRequests(), null);
    expect(refused).toMatchObject({ status: 403, codes: ['not_allowed_access'] });
    for (const u of [admin, welcome, turnedDown]) await u.context.close();
  }, 120_000);
});
