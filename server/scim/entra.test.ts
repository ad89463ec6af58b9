import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, events } from '../db/schema';
import { orgClaims } from '../sessions/org-claims';
import { memberAccess } from '../organizations/memberships';
import { createHarness, type TestHarness } from '../testing/harness';
import { createDirectory, scimCaller } from '../testing/scim';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, PATCH_SCHEMA, USER_SCHEMA } from './discovery';

/**
 * Microsoft Entra ID's provisioning requests, in the shapes its SCIM documentation shows
 * ("Develop a sample SCIM endpoint": user and group operations), against the server.
 */
let h: TestHarness;
let key: string;
let instanceId: string;
let orgId: string;
let token: string;

const scim = scimCaller(
  () => h,
  () => token,
);
const patch = (path: string, Operations: unknown[]) => scim('PATCH', path, { schemas: [PATCH_SCHEMA], Operations });
const q = (filter: string) => encodeURIComponent(filter);

beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
  ({ key, instanceId, orgId, token } = await createDirectory(h, 'Contoso', 'Entra'));
});
afterAll(() => h.close());

const entraUser = (userName: string, externalId: string) => ({
  schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
  externalId,
  userName,
  active: true,
  emails: [{ primary: true, type: 'work', value: userName }],
  meta: { resourceType: 'User' },
  name: { formatted: 'givenName familyName', familyName: 'familyName', givenName: 'givenName' },
  roles: [],
});

describe('Entra: users', () => {
  let id: string;
  let managerId: string;

  it('checks for the user by userName, then creates it', async () => {
    const lookup = await scim('GET', `/Users?filter=${q('userName eq "Test_User_ab6490ee@contoso.com"')}`);
    expect(lookup.body.totalResults).toBe(0);
    const created = await scim('POST', '/Users', entraUser('Test_User_ab6490ee@contoso.com', '0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    id = created.body.id;
    const byExternal = await scim('GET', `/Users?filter=${q('externalId eq "0a21f0f2-8d2a-4f8e-bf98-7363c4aed4ef"')}`);
    expect(byExternal.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    managerId = (await scim('POST', '/Users', entraUser('Manager_1@contoso.com', 'mgr-1'))).body.id;
  });

  it('applies Replace operations with value-filter paths and sub-attributes', async () => {
    const res = await patch(`/Users/${id}`, [
      { op: 'Replace', path: 'emails[type eq "work"].value', value: 'updatedEmail@microsoft.com' },
      { op: 'Replace', path: 'name.familyName', value: 'updatedFamilyName' },
    ]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.emails).toEqual([{ primary: true, type: 'work', value: 'updatedEmail@microsoft.com' }]);
    expect(res.body.name.familyName).toBe('updatedFamilyName');
    expect(res.body.name.givenName).toBe('givenName');
    const user = await h.call('GET', `/v1/users/${id}`, { key });
    expect(user.body.last_name).toBe('updatedFamilyName');
  });

  it('adds and removes the manager through the enterprise extension path', async () => {
    const added = await patch(`/Users/${id}`, [{ op: 'Add', path: `${ENTERPRISE_SCHEMA}:manager`, value: managerId }]);
    expect(added.body[ENTERPRISE_SCHEMA]).toEqual({ manager: { value: managerId } });
    const dept = await patch(`/Users/${id}`, [{ op: 'Add', path: `${ENTERPRISE_SCHEMA}:department`, value: 'Finance' }]);
    expect(dept.body[ENTERPRISE_SCHEMA]).toEqual({ manager: { value: managerId }, department: 'Finance' });
    const removed = await patch(`/Users/${id}`, [{ op: 'Remove', path: `${ENTERPRISE_SCHEMA}:manager` }]);
    expect(removed.body[ENTERPRISE_SCHEMA]).toEqual({ department: 'Finance' });
    const found = await scim('GET', `/Users?filter=${q(`${ENTERPRISE_SCHEMA}:department eq "finance" and active eq true`)}`);
    expect(found.body.totalResults).toBe(1);
  });

  it('changes userName of a user it created: the primary address follows', async () => {
    const res = await patch(`/Users/${id}`, [{ op: 'Replace', path: 'userName', value: 'renamed@contoso.com' }]);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.userName).toBe('renamed@contoso.com');
    const user = await h.call('GET', `/v1/users/${id}`, { key });
    expect(user.body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual(['renamed@contoso.com']);
    expect(user.body.primary_email_address_id).toBe(user.body.email_addresses[0].id);
  });

  it('reads Entra’s string booleans: active "False" deactivates', async () => {
    const res = await patch(`/Users/${id}`, [{ op: 'Replace', path: 'active', value: 'False' }]);
    expect(res.body.active).toBe(false);
    const inactive = await scim('GET', `/Users?filter=${q('active eq false')}`);
    expect(inactive.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    const back = await patch(`/Users/${id}`, [{ op: 'Replace', path: 'active', value: 'True' }]);
    expect(back.body.active).toBe(true);
  });

  it('refuses malformed PATCH bodies with SCIM errors', async () => {
    expect((await patch(`/Users/${id}`, [{ op: 'Frobnicate', path: 'active', value: true }])).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
    expect((await patch(`/Users/${id}`, [{ op: 'Remove' }])).body).toMatchObject({ status: '400', scimType: 'noTarget' });
    expect((await patch(`/Users/${id}`, [{ op: 'Replace', path: 'emails[type eq', value: 'x' }])).body).toMatchObject({
      status: '400',
      scimType: 'invalidPath',
    });
    expect((await patch(`/Users/${id}`, [{ op: 'Replace', path: 'id', value: 'user_x' }])).body).toMatchObject({
      status: '400',
      scimType: 'mutability',
    });
    expect((await patch(`/Users/${id}`, [{ op: 'Replace', path: 'active', value: 'maybe' }])).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
    expect((await patch(`/Users/${id}`, [{ op: 'Replace', path: 'userName', value: 42 }])).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
    const bad = await h.call('PATCH', `/scim/v2/Users/${id}`, {
      key: token,
      raw: '{"Operations":',
      headers: { 'content-type': 'application/scim+json' },
    });
    expect(bad.body).toMatchObject({ status: '400', scimType: 'invalidSyntax' });
    const badFilter = await scim('GET', `/Users?filter=${q('userName eq')}`);
    expect(badFilter.body).toMatchObject({ status: '400', scimType: 'invalidFilter' });
  });

  it('deletes the user: 204', async () => {
    const res = await h.request('DELETE', `/scim/v2/Users/${managerId}`, { key: token });
    expect(res.status).toBe(204);
  });
});

describe('Entra: groups', () => {
  let groupId: string;
  let members: string[];
  beforeAll(async () => {
    members = [];
    for (const n of [1, 2]) members.push((await scim('POST', '/Users', entraUser(`g${n}@contoso.com`, `g-${n}`))).body.id);
  });

  it('creates a group without members, finds it by displayName without members', async () => {
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159',
      displayName: 'displayName',
      meta: { resourceType: 'Group' },
    });
    expect(created.status).toBe(201);
    groupId = created.body.id;
    expect(created.body.members).toEqual([]);
    const found = await scim('GET', `/Groups?excludedAttributes=members&filter=${q('displayName eq "displayName"')}`);
    expect(found.body.Resources).toHaveLength(1);
    expect(found.body.Resources[0]).not.toHaveProperty('members');
    const one = await scim('GET', `/Groups/${groupId}?excludedAttributes=members`);
    expect(one.body).toMatchObject({ id: groupId, externalId: '8aa1a0c0-c4c3-4bc0-b4a5-2ef676900159' });
    expect(one.body).not.toHaveProperty('members');
  });

  it('adds members and removes them by value', async () => {
    const added = await patch(`/Groups/${groupId}`, [
      { op: 'Add', path: 'members', value: members.map((m) => ({ $ref: null, value: m })) },
    ]);
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([...members].sort());
    const removed = await patch(`/Groups/${groupId}`, [{ op: 'Remove', path: 'members', value: [{ $ref: null, value: members[0] }] }]);
    expect(removed.body.members.map((m: { value: string }) => m.value)).toEqual([members[1]]);
    const renamed = await patch(`/Groups/${groupId}`, [
      { op: 'Replace', path: 'displayName', value: '1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName' },
    ]);
    expect(renamed.body.displayName).toBe('1879db59-3bdf-4490-ad68-ab880a269474updatedDisplayName');
  });
});

describe('deactivation', () => {
  it('a deactivated user’s session refresh fails at once; a linked user keeps its account', async () => {
    // A user of the instance before the directory knew it, also in another organization: the
    // directory links it because the address is at a domain Contoso verified.
    expect(
      (await h.call('POST', `/v1/organizations/${orgId}/domains`, { key, body: { name: 'contoso.com', verified: true } })).status,
    ).toBe(200);
    const user = (await h.call('POST', '/v1/users', { key, body: { email_address: ['linked@contoso.com'], first_name: 'Lin' } })).body;
    const other = (await h.call('POST', '/v1/organizations', { key, body: { name: 'Elsewhere' } })).body.id;
    await h.call('POST', `/v1/organizations/${other}/memberships`, { key, body: { user_id: user.id } });
    const session = (await h.call('POST', '/v1/sessions', { key, body: { user_id: user.id } })).body;

    const linked = await scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: 'LINKED@contoso.com' });
    expect(linked.status).toBe(201);
    expect(linked.body.id).toBe(user.id);
    expect(linked.body.name.givenName).toBe('Lin');
    const refreshed = await h.call('POST', `/v1/sessions/${session.id}/refresh`, { key, body: { refresh_token: session.refresh_token } });
    expect(refreshed.status).toBe(200);

    const off = await patch(`/Users/${user.id}`, [{ op: 'replace', value: { active: false } }]);
    expect(off.body.active).toBe(false);
    const refused = await h.call('POST', `/v1/sessions/${session.id}/refresh`, {
      key,
      body: { refresh_token: refreshed.body.refresh_token },
    });
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].code).toBe('SESSION_REVOKED');
    const after = (await h.call('GET', `/v1/users/${user.id}`, { key })).body;
    expect(after.banned).toBe(false);
    expect(after.sessions_version).toBe(user.sessions_version + 1);

    // Its membership here is suspended: no organization access or claims, and the audit names the directory.
    expect(await memberAccess(h.runtime.deps.db, instanceId, orgId, user.id)).toBeNull();
    expect(await orgClaims(h.runtime.deps.db, instanceId, orgId, user.id)).toBeNull();
    expect(await orgClaims(h.runtime.deps.db, instanceId, other, user.id)).toMatchObject({ org_id: other });
    const [suspended] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, instanceId), eq(auditLogs.action, 'organization_membership.suspended')));
    expect(suspended).toMatchObject({ actorKind: 'scim_token', target: expect.stringMatching(/^orgmem_/) });
    expect(suspended!.actor).toMatch(/^scim:scimtok_/);

    // Its address is its own, not the directory's; another directory user's userName is taken.
    const moved = await patch(`/Users/${user.id}`, [{ op: 'replace', path: 'userName', value: 'elsewhere@contoso.com' }]);
    expect(moved.body).toMatchObject({ status: '400', scimType: 'mutability' });
    const taken = await patch(`/Users/${user.id}`, [{ op: 'replace', path: 'userName', value: 'g1@contoso.com' }]);
    expect(taken.body).toMatchObject({ status: '409', scimType: 'uniqueness' });

    // Deleting it removes only this membership: the user existed before the directory.
    expect((await h.request('DELETE', `/scim/v2/Users/${user.id}`, { key: token })).status).toBe(204);
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).status).toBe(200);
    const memberships = await h.call('GET', `/v1/users/${user.id}/organization_memberships`, { key });
    expect(memberships.body.data.map((m: { organization: { id: string } }) => m.organization.id)).toEqual([other]);
  });
});

describe('group → role mapping', () => {
  it('members of mapped groups get the highest mapped role, and lose it when removed', async () => {
    const alice = (await scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: 'alice@contoso.com' })).body.id;
    // Bob stays an admin: the last-admin rule would keep Alice's role otherwise.
    const bob = (await scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: 'bob@contoso.com' })).body.id;
    const admins = (
      await scim('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Admins', members: [{ value: alice }, { value: bob }] })
    ).body.id;
    const staff = (await scim('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'Staff', members: [{ value: alice }] })).body.id;
    const roleOf = async () =>
      (await h.call('GET', `/v1/users/${alice}/organization_memberships`, { key })).body.data.find(
        (m: { organization: { id: string } }) => m.organization.id === orgId,
      ).role;
    expect(await roleOf()).toBe('org:member');

    const groups = await h.call('GET', `/v1/scim_groups?organization_id=${orgId}`, { key });
    expect(groups.body.data.map((g: { display_name: string; members_count: number }) => [g.display_name, g.members_count])).toEqual(
      expect.arrayContaining([
        ['Admins', 2],
        ['Staff', 1],
      ]),
    );
    const mapped = await h.call('PATCH', `/v1/scim_groups/${admins}`, { key, body: { role: 'org:admin' } });
    expect(mapped.status, JSON.stringify(mapped.body)).toBe(200);
    expect(mapped.body).toMatchObject({ object: 'scim_group', role: 'org:admin', members_count: 2 });
    await h.call('PATCH', `/v1/scim_groups/${staff}`, { key, body: { role: 'org:member' } });
    expect(await roleOf()).toBe('org:admin');

    const updates = async () =>
      (
        await h.runtime.deps.db
          .select()
          .from(events)
          .where(and(eq(events.instanceId, instanceId), eq(events.type, 'organizationMembership.updated')))
      ).filter((e) => (e.data as { public_user_data: { user_id: string } }).public_user_data.user_id === alice).length;
    const before = await updates();
    await patch(`/Groups/${admins}`, [{ op: 'remove', path: `members[value eq "${alice}"]` }]);
    expect(await roleOf()).toBe('org:member');
    expect(await updates()).toBe(before + 1);

    const unknownRole = await h.call('PATCH', `/v1/scim_groups/${admins}`, { key, body: { role: 'org:nope' } });
    expect(unknownRole.status).toBe(422);
    expect(unknownRole.body.errors[0].meta).toMatchObject({ param: 'role', reason: 'unknown_role' });
  });
});
