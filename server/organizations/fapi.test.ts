import { eq } from 'drizzle-orm';
import { decodeJwt } from 'jose';
import { describe, expect, it } from 'vitest';
import { sessions } from '../db/schema';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { browserOf, eventsDuring, signUp } from '../testing/auth-flows';
import { bapiWith, createTestUser, setSettings, signedInClient } from '../testing/fapi-helpers';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);

let seq = 0;
const uniqEmail = (tag: string) => `${tag}.${Date.now().toString(36)}.${++seq}@example.com`;
const newUser = (tag = 'u') => createTestUser(h, i, { email_address: uniqEmail(tag), first_name: tag });
const { call: bapi, ok: bapiOk } = bapiWith(h, i);

async function eventTypes<T>(fn: () => Promise<T>) {
  const { result, events } = await eventsDuring(h, i.instanceId, fn);
  return { result, types: events.map((e) => e.type) };
}

/** An organization with an admin and a plain member, each signed in on their own browser. */
async function team() {
  const adminId = await newUser('admin');
  const memberId = await newUser('member');
  const org = await bapiOk('POST', '/v1/organizations', { name: `Team ${++seq}`, created_by: adminId });
  await bapiOk('POST', `/v1/organizations/${org.id}/memberships`, { user_id: memberId });
  const admin = await signedInClient(h, i, adminId);
  const member = await signedInClient(h, i, memberId);
  return { org, adminId, memberId, admin, member };
}

describe('FAPI organizations', () => {
  it('the router audits a member’s change under their session (organization.updated, actor_kind user)', async () => {
    const { org, admin } = await team();
    const renamed = await admin.b.call('PATCH', `/v1/organizations/${org.id}`, { body: { name: 'Renamed' } });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const log = await bapiOk('GET', `/v1/audit_logs?action=organization.updated&target=${org.id}`);
    expect(log.data).toHaveLength(1);
    expect(log.data[0]).toMatchObject({ actor: expect.stringMatching(/^session:sess_/), actor_kind: 'user', target: org.id });
  });

  it('lists the user’s memberships and creates organizations when the instance allows it', async () => {
    const u = await newUser('creator');
    const { b } = await signedInClient(h, i, u);
    expect((await b.call('GET', '/v1/me/organization_memberships')).body).toEqual({ object: 'list', data: [], has_more: false });

    const { result: created, types } = await eventTypes(() => b.call('POST', '/v1/organizations', { body: { name: 'Mine' } }));
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ object: 'organization', name: 'Mine', members_count: 1, created_by: u });
    expect(created.body).not.toHaveProperty('private_metadata');
    expect(types).toEqual(['organization.created', 'organizationMembership.created']);

    const mine = await b.call('GET', '/v1/me/organization_memberships');
    expect(mine.body.data).toHaveLength(1);
    expect(mine.body.data[0]).toMatchObject({ role: 'org:admin', organization: { id: created.body.id } });
    expect(mine.body.data[0]).not.toHaveProperty('private_metadata');

    // The environment says what the hosted pages offer: the switcher and "Create an organization".
    const offers = async () => {
      const env = (await b.call('GET', '/v1/environment')).body;
      // Clerk's dialect of the same (clerk-js's OrganizationSwitcher reads both the environment's action and the user's flag).
      const clerk = (await b.call('GET', '/v1/environment?__clerk_api_version=2025-11-10&_clerk_js_version=6.40.0')).body;
      const me = (await b.call('GET', '/v1/me')).body;
      expect(clerk.user_settings.actions.create_organization).toBe(env.user_settings.actions.create_organization);
      expect(me.create_organization_enabled).toBe(env.user_settings.actions.create_organization);
      return { enabled: env.user_settings.organizations.enabled, create: env.user_settings.actions.create_organization };
    };
    expect(await offers()).toEqual({ enabled: true, create: true });
    await setSettings(h, i.instanceId, { organization_creation_enabled: false });
    expectError(await b.call('POST', '/v1/organizations', { body: { name: 'No' } }), 403, 'FORBIDDEN', {
      reason: 'organization_creation_disabled',
    });
    expect(await offers()).toEqual({ enabled: true, create: false });
    await setSettings(h, i.instanceId, { organization_creation_enabled: true, organizations_enabled: false });
    expectError(await b.call('GET', '/v1/me/organization_memberships'), 403, 'FORBIDDEN', { reason: 'organizations_disabled' });
    expect(await offers()).toEqual({ enabled: false, create: false });
    await setSettings(h, i.instanceId, { organizations_enabled: true });

    // The creator's role comes from the settings.
    await setSettings(h, i.instanceId, { organization_creator_role: 'org:member' });
    const asMember = await b.call('POST', '/v1/organizations', { body: { name: 'Plain' } });
    const list = await bapiOk('GET', `/v1/organizations/${asMember.body.id}/memberships`);
    expect(list.data[0].role).toBe('org:member');
    await setSettings(h, i.instanceId, { organization_creator_role: 'org:admin' });

    expectError(await browserOf(h, i).call('GET', '/v1/me/organization_memberships'), 401, 'UNAUTHENTICATED');
  });

  it('checks permissions: a member without the permission gets 403, a non-member 404', async () => {
    const { org, adminId, memberId, admin, member } = await team();
    // Reading members: both roles may.
    expect((await member.b.call('GET', `/v1/organizations/${org.id}/memberships`)).status).toBe(200);
    expect((await admin.b.call('GET', `/v1/organizations/${org.id}/memberships`)).body.data).toHaveLength(2);

    const forbidden = [
      member.b.call('POST', `/v1/organizations/${org.id}/invitations`, { body: { email_address: uniqEmail('x') } }),
      member.b.call('GET', `/v1/organizations/${org.id}/invitations`),
      member.b.call('PATCH', `/v1/organizations/${org.id}/memberships/${adminId}`, { body: { role: 'org:member' } }),
      member.b.call('DELETE', `/v1/organizations/${org.id}/memberships/${adminId}`),
      member.b.call('PATCH', `/v1/organizations/${org.id}`, { body: { name: 'Hijacked' } }),
      member.b.call('DELETE', `/v1/organizations/${org.id}`),
      member.b.call('POST', `/v1/organizations/${org.id}/domains`, { body: { name: 'team.example.net' } }),
      member.b.call('GET', `/v1/organizations/${org.id}/domains`),
    ];
    for (const res of await Promise.all(forbidden)) expectError(res, 403, 'FORBIDDEN', { reason: 'missing_permission' });

    const outsider = await signedInClient(h, i, await newUser('outsider'));
    expectError(await outsider.b.call('GET', `/v1/organizations/${org.id}`), 404, 'NOT_FOUND');
    expectError(await outsider.b.call('GET', `/v1/organizations/${org.id}/memberships`), 404, 'NOT_FOUND');

    // The admin may: invite, change roles, remove.
    const { result: invited, types } = await eventTypes(() =>
      admin.b.call('POST', `/v1/organizations/${org.id}/invitations`, { body: { email_address: uniqEmail('inv') } }),
    );
    expect(invited.status, JSON.stringify(invited.body)).toBe(200);
    expect(invited.body).toMatchObject({ status: 'pending', inviter_user_id: adminId });
    expect(types).toEqual(['organizationInvitation.created', 'email.created']);
    const revoked = await eventTypes(() => admin.b.call('POST', `/v1/organizations/${org.id}/invitations/${invited.body.id}/revoke`));
    expect(revoked.result.body.status).toBe('revoked');
    expect(revoked.types).toEqual(['organizationInvitation.revoked']);

    const promoted = await eventTypes(() =>
      admin.b.call('PATCH', `/v1/organizations/${org.id}/memberships/${memberId}`, { body: { role: 'org:admin' } }),
    );
    expect(promoted.result.body.role).toBe('org:admin');
    expect(promoted.types).toEqual(['organizationMembership.updated']);
    // A custom role with a custom permission is honoured too.
    await bapiOk('POST', '/v1/permissions', { key: 'org:reports:read', name: 'Reports' });
    await bapiOk('POST', '/v1/roles', {
      key: 'org:auditor',
      name: 'Auditor',
      permissions: ['org:reports:read', 'org:sys_memberships:manage'],
    });
    expect(
      (await admin.b.call('PATCH', `/v1/organizations/${org.id}/memberships/${memberId}`, { body: { role: 'org:auditor' } })).status,
    ).toBe(200);
    expect((await member.b.call('GET', `/v1/organizations/${org.id}/invitations`)).status).toBe(200);
    // Holding org:sys_memberships:manage counts as an admin for the last-admin rule: back to a plain member first.
    await bapiOk('PATCH', `/v1/organizations/${org.id}/memberships/${memberId}`, { role: 'org:member' });

    // The last admin cannot demote or remove themselves, nor leave.
    expectError(
      await admin.b.call('PATCH', `/v1/organizations/${org.id}/memberships/${adminId}`, { body: { role: 'org:member' } }),
      409,
      'CONFLICT',
      { reason: 'last_admin' },
    );
    expectError(await admin.b.call('DELETE', `/v1/me/organization_memberships/${org.id}`), 409, 'CONFLICT', { reason: 'last_admin' });

    const removed = await eventTypes(() => admin.b.call('DELETE', `/v1/organizations/${org.id}/memberships/${memberId}`));
    expect(removed.result.status).toBe(200);
    expect(removed.types).toEqual(['organizationMembership.deleted']);

    const deleted = await eventTypes(() => admin.b.call('DELETE', `/v1/organizations/${org.id}`));
    expect(deleted.result.status).toBe(200);
    expect(deleted.types).toEqual(['organizationMembership.deleted', 'organization.deleted']);
  });

  it('adds a user of the instance directly (POST …/memberships) for a member holding org:sys_memberships:manage only', async () => {
    const { org, adminId, member } = await team();
    const newcomer = await newUser('newcomer');
    expectError(await member.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: newcomer } }), 403, 'FORBIDDEN', {
      reason: 'missing_permission',
    });
    const admin = await signedInClient(h, i, adminId);

    const { result: added, types } = await eventTypes(() =>
      admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: newcomer, role: 'org:admin' } }),
    );
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body).toMatchObject({
      object: 'organization_membership',
      role: 'org:admin',
      public_user_data: { user_id: newcomer },
      organization: { id: org.id },
    });
    expect(added.body).not.toHaveProperty('private_metadata');
    expect(types).toEqual(['organizationMembership.created']);
    const log = await bapiOk('GET', `/v1/audit_logs?action=organization_membership.created&target=${added.body.id}`);
    expect(log.data[0]).toMatchObject({ actor: expect.stringMatching(/^session:sess_/), actor_kind: 'user' });

    // Without a role: the instance's default one.
    const plain = await newUser('plain');
    expect((await admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: plain } })).body.role).toBe(
      'org:member',
    );

    expectError(await admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: newcomer } }), 409, 'CONFLICT', {
      reason: 'already_member',
      param: 'user_id',
    });
    expectError(
      await admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: await newUser(), role: 'org:nobody' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'role' },
    );
    // Metadata is the server's: the FAPI body takes none.
    expectError(
      await admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, {
        body: { user_id: await newUser(), public_metadata: { a: 1 } },
      }),
      422,
      'VALIDATION_FAILED',
      { param: 'public_metadata' },
    );
    // A user of another instance is no user here.
    const other = await h.createInstance();
    const stranger = await createTestUser(h, other, { email_address: uniqEmail('stranger') });
    expectError(
      await admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: stranger } }),
      422,
      'VALIDATION_FAILED',
      { param: 'user_id', reason: 'not_found' },
    );

    // The organization's cap holds.
    await bapiOk('PATCH', `/v1/organizations/${org.id}`, { max_allowed_memberships: 4 });
    expectError(
      await admin.b.call('POST', `/v1/organizations/${org.id}/memberships`, { body: { user_id: await newUser() } }),
      403,
      'FORBIDDEN',
      { reason: 'membership_limit' },
    );
    expect((await bapiOk('GET', `/v1/organizations/${org.id}/memberships`)).data).toHaveLength(4);
  });

  it('an admin (org:sys_profile:manage) sets the organization’s logo: image_url is its public URL, served with immutable caching; removing it', async () => {
    const { org, member, admin } = await team();
    const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64');
    const upload = { data: PNG.toString('base64') };
    expectError(await member.b.call('POST', `/v1/organizations/${org.id}/logo`, { body: upload }), 403, 'FORBIDDEN', {
      reason: 'missing_permission',
    });
    expectError(
      await admin.b.call('POST', `/v1/organizations/${org.id}/logo`, { body: { data: Buffer.from('<html></html>').toString('base64') } }),
      422,
      'VALIDATION_FAILED',
      { reason: 'type_mismatch' },
    );
    expect(
      (
        await admin.b.call('POST', `/v1/organizations/${org.id}/logo`, {
          body: { data: Buffer.concat([PNG, Buffer.alloc(600 * 1024)]).toString('base64') },
        })
      ).status,
    ).toBeGreaterThanOrEqual(413);

    const { result: set, types } = await eventTypes(() => admin.b.call('POST', `/v1/organizations/${org.id}/logo`, { body: upload }));
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ object: 'organization', id: org.id, has_image: true });
    expect(set.body).not.toHaveProperty('private_metadata');
    expect(types).toEqual(['organization.updated']);
    expect((await bapiOk('GET', `/v1/audit_logs?action=organization.logo_updated&target=${org.id}`)).data).toHaveLength(1);
    const url = new URL(set.body.image_url);
    expect(url.pathname).toMatch(new RegExp(`^/fapi/${i.instanceId}/v1/organization_logos/${org.id}/[0-9a-f]{16}$`));
    expect((await bapiOk('GET', `/v1/organizations/${org.id}`)).image_url).toBe(set.body.image_url);

    // Public, like a profile image: no client needed.
    const image = await h.request('GET', url.pathname);
    expect(image.status).toBe(200);
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(image.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(Buffer.from(await image.arrayBuffer()).equals(PNG)).toBe(true);
    expect((await h.request('GET', url.pathname, { headers: { 'if-none-match': image.headers.get('etag')! } })).status).toBe(304);
    const other = await h.createInstance();
    expect((await h.request('GET', url.pathname.replace(i.instanceId, other.instanceId))).status).toBe(404);

    expectError(await member.b.call('DELETE', `/v1/organizations/${org.id}/logo`), 403, 'FORBIDDEN', { reason: 'missing_permission' });
    const removed = await admin.b.call('DELETE', `/v1/organizations/${org.id}/logo`);
    expect(removed.body).toMatchObject({ has_image: false, image_url: null });
    expect((await h.request('GET', url.pathname)).status).toBe(404);
    expectError(await admin.b.call('DELETE', `/v1/organizations/${org.id}/logo`), 404, 'NOT_FOUND');
  });

  it('sets the active organization: jwt claims follow it, and a removed member loses them at the next refresh', async () => {
    const { org, memberId, member } = await team();
    const touch = (body: unknown) => member.b.call('POST', `/v1/client/sessions/${member.sessionId}/touch`, { body });
    const token = async () => decodeJwt((await member.b.call('POST', `/v1/client/sessions/${member.sessionId}/tokens`)).body.jwt);

    expect(await token()).not.toHaveProperty('org_id');
    const touched = await touch({ active_organization_id: org.id });
    expect(touched.status, JSON.stringify(touched.body)).toBe(200);
    expect(touched.body.response.last_active_organization_id).toBe(org.id);
    const claims = await token();
    expect(claims).toMatchObject({
      sub: memberId,
      org_id: org.id,
      org_slug: org.slug,
      org_role: 'org:member',
      org_permissions: ['org:sys_memberships:read'],
    });
    expect((await bapiOk('GET', `/v1/sessions/${member.sessionId}`)).last_active_organization_id).toBe(org.id);

    // A role change shows at the next token.
    await bapiOk('PATCH', `/v1/organizations/${org.id}/memberships/${memberId}`, { role: 'org:admin' });
    expect((await token()).org_role).toBe('org:admin');
    await bapiOk('PATCH', `/v1/organizations/${org.id}/memberships/${memberId}`, { role: 'org:member' });

    // Not a member of that one: 404; null clears it.
    const elsewhere = await bapiOk('POST', '/v1/organizations', { name: `Else ${++seq}` });
    expectError(await touch({ active_organization_id: elsewhere.id }), 404, 'NOT_FOUND');
    expect((await touch({ active_organization_id: null })).body.response.last_active_organization_id).toBeNull();
    expect(await token()).not.toHaveProperty('org_id');

    await touch({ active_organization_id: org.id });
    expect((await token()).org_id).toBe(org.id);
    // Organizations turned off: no claims, and no organization can be made active.
    await setSettings(h, i.instanceId, { organizations_enabled: false });
    expect(await token()).not.toHaveProperty('org_id');
    expectError(await touch({ active_organization_id: org.id }), 403, 'FORBIDDEN', { reason: 'organizations_disabled' });
    await setSettings(h, i.instanceId, { organizations_enabled: true });
    expect((await token()).org_id).toBe(org.id);
    await bapiOk('DELETE', `/v1/organizations/${org.id}/memberships/${memberId}`);
    const after = await token();
    expect(after).not.toHaveProperty('org_id');
    expect(after).not.toHaveProperty('org_role');
    expect(after).not.toHaveProperty('org_permissions');
    expect((await bapiOk('GET', `/v1/sessions/${member.sessionId}`)).last_active_organization_id).toBeNull();
  });

  it('refresh-token rotation re-reads the membership for the org claims', async () => {
    const u = await newUser('refresher');
    const org = await bapiOk('POST', '/v1/organizations', { name: `R ${++seq}`, created_by: u });
    const minted = await bapiOk('POST', '/v1/sessions', { user_id: u });
    await h.runtime.deps.db.update(sessions).set({ lastActiveOrganizationId: org.id }).where(eq(sessions.id, minted.id));
    const fapiRefresh = (rt: string) =>
      h.call('POST', `/fapi/${i.instanceId}/v1/sessions/${minted.id}/refresh`, { body: { refresh_token: rt } });
    const first = await fapiRefresh(minted.refresh_token);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(decodeJwt(first.body.jwt)).toMatchObject({ org_id: org.id, org_role: 'org:admin' });
    // The user leaves (another admin first, so the rule allows it); the org is dropped from the session.
    await bapiOk('POST', `/v1/organizations/${org.id}/memberships`, { user_id: await newUser(), role: 'org:admin' });
    await bapiOk('DELETE', `/v1/organizations/${org.id}/memberships/${u}`);
    const second = await fapiRefresh(first.body.refresh_token);
    expect(second.status).toBe(200);
    expect(decodeJwt(second.body.jwt)).not.toHaveProperty('org_id');
  });
});

describe('FAPI invitations', () => {
  it('an invited address signs up, sees the invitation and accepts it: the membership is created', async () => {
    const org = await bapiOk('POST', '/v1/organizations', { name: `Inv ${++seq}` });
    const email = uniqEmail('newcomer');
    const { result: inv, types } = await eventTypes(() =>
      bapiOk('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email, role: 'org:admin' }),
    );
    expect(inv).toMatchObject({
      object: 'organization_invitation',
      id: expect.stringMatching(/^orginv_/),
      status: 'pending',
      role: 'org:admin',
      email_address: email,
    });
    expect(types).toEqual(['organizationInvitation.created', 'email.created']);
    const mail = (await h.outbox(email))[0]!;
    expect(mail.template).toBe('organization_invitation');
    expect(mail.data.organization_name).toBe(org.name);
    expect(String(mail.data.url)).toMatch(/invitation_token=oit_/);

    // Signing up first, with an email code to the invited address.
    const b = browserOf(h, i);
    await signUp(h, b, { email_address: email, password: 'a long enough passphrase' });
    const mine = await b.call('GET', '/v1/me/organization_invitations');
    expect(mine.body.data.map((x: { id: string }) => x.id)).toEqual([inv.id]);
    expect(mine.body.data[0]).not.toHaveProperty('private_metadata');

    const { result: acc, types: accTypes } = await eventTypes(() => b.call('POST', `/v1/me/organization_invitations/${inv.id}/accept`));
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(acc.body).toMatchObject({ invitation: { status: 'accepted' }, membership: { role: 'org:admin', organization: { id: org.id } } });
    expect(accTypes).toEqual(['organizationMembership.created', 'organizationInvitation.accepted']);
    expectError(await b.call('POST', `/v1/me/organization_invitations/${inv.id}/accept`), 409, 'CONFLICT', {
      reason: 'invitation_accepted',
    });
    expect((await bapiOk('GET', `/v1/organizations/${org.id}/invitations?status=accepted`)).data).toHaveLength(1);
  });

  it('accepts by the link’s token only as the invited address; another user gets 404', async () => {
    const org = await bapiOk('POST', '/v1/organizations', { name: `Tok ${++seq}` });
    const email = uniqEmail('tok');
    const userId = await createTestUser(h, i, { email_address: email });
    await bapiOk('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email });
    const token = new URL(String((await h.outbox(email))[0]!.data.url)).searchParams.get('invitation_token')!;

    const stranger = await signedInClient(h, i, await newUser('stranger'));
    expectError(await stranger.b.call('POST', '/v1/me/organization_invitations/accept', { body: { token } }), 404, 'NOT_FOUND');
    const invited = await signedInClient(h, i, userId);
    const res = await invited.b.call('POST', '/v1/me/organization_invitations/accept', { body: { token } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.membership.public_user_data.user_id).toBe(userId);
  });

  it('expired and revoked invitations cannot be accepted', async () => {
    const org = await bapiOk('POST', '/v1/organizations', { name: `Exp ${++seq}` });
    const email = uniqEmail('late');
    const userId = await createTestUser(h, i, { email_address: email });
    const inv = await bapiOk('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email, expires_in_days: 1 });
    h.clock.advance(86_400_000 + 1);
    expect((await bapiOk('GET', `/v1/organizations/${org.id}/invitations/${inv.id}`)).status).toBe('expired');
    expect((await bapiOk('GET', `/v1/organizations/${org.id}/invitations?status=expired`)).data).toHaveLength(1);
    const { b } = await signedInClient(h, i, userId);
    expect((await b.call('GET', '/v1/me/organization_invitations')).body.data).toEqual([]);
    expectError(await b.call('POST', `/v1/me/organization_invitations/${inv.id}/accept`), 409, 'CONFLICT', {
      reason: 'invitation_expired',
    });
    expectError(await bapi('POST', `/v1/organizations/${org.id}/invitations/${inv.id}/revoke`), 409, 'CONFLICT');

    const again = await bapiOk('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email });
    await bapiOk('POST', `/v1/organizations/${org.id}/invitations/${again.id}/revoke`);
    expectError(await b.call('POST', `/v1/me/organization_invitations/${again.id}/accept`), 409, 'CONFLICT', {
      reason: 'invitation_revoked',
    });
  });
});
