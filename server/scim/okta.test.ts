import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type TestHarness } from '../testing/harness';
import { createDirectory, scimCaller } from '../testing/scim';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, PATCH_SCHEMA, USER_SCHEMA } from './discovery';

/**
 * Okta's "SCIM 2.0 Spec Test" (the Runscope suite Okta asks integrators to pass), its
 * numbered steps rewritten against the in-process server, then Okta's group push calls.
 */
let h: TestHarness;
let key: string;
let orgId: string;
let token: string;
const scim = scimCaller(
  () => h,
  () => token,
);

beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
  ({ key, orgId, token } = await createDirectory(h, 'Okta Co', 'Okta'));
});
afterAll(() => h.close());

const OKTA_USER = {
  schemas: [USER_SCHEMA],
  userName: 'Runscope300Test@atko.com',
  name: { givenName: 'Runscope300', familyName: 'Tester' },
  emails: [{ primary: true, value: 'Runscope300Test@atko.com', type: 'work' }],
  displayName: 'Runscope300 Tester',
  locale: 'en-US',
  externalId: '00ujl29u0le5T6Aj10h7',
  groups: [],
  password: '1mz050nq',
  active: true,
};

describe('Okta SCIM 2.0 spec test', () => {
  let userId: string;

  it('1. GET /Users?count=1&startIndex=1 answers a ListResponse', async () => {
    const res = await scim('GET', '/Users?count=1&startIndex=1');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(res.body).toMatchObject({ schemas: [LIST_SCHEMA], totalResults: 0, startIndex: 1, itemsPerPage: 0, Resources: [] });
  });

  it('2. a filter on an unknown userName finds nothing', async () => {
    const res = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "nobody-here@atko.com"')}`);
    expect(res.status).toBe(200);
    expect(res.body.totalResults).toBe(0);
  });

  it('3. POST /Users creates the user: 201, Location, meta.version', async () => {
    const res = await scim('POST', '/Users', OKTA_USER);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    userId = res.body.id;
    expect(res.body).toMatchObject({
      schemas: [USER_SCHEMA],
      userName: 'Runscope300Test@atko.com',
      name: { givenName: 'Runscope300', familyName: 'Tester' },
      active: true,
      externalId: '00ujl29u0le5T6Aj10h7',
      displayName: 'Runscope300 Tester',
      emails: [{ value: 'Runscope300Test@atko.com', type: 'work', primary: true }],
      meta: { resourceType: 'User', location: `http://localhost:3000/scim/v2/Users/${userId}`, version: 'W/"1"' },
    });
    expect(res.headers.get('location')).toBe(res.body.meta.location);
    expect(res.headers.get('etag')).toBe('W/"1"');
    expect(res.body).not.toHaveProperty('password');
  });

  it('…and it is a Latchkey user and a member of the token’s organization', async () => {
    const user = await h.call('GET', `/v1/users/${userId}`, { key });
    expect(user.body).toMatchObject({
      first_name: 'Runscope300',
      last_name: 'Tester',
      email_addresses: [{ email_address: 'Runscope300Test@atko.com' }],
    });
    const members = await h.call('GET', `/v1/organizations/${orgId}/memberships`, { key });
    expect(members.body.data.map((m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id)).toEqual([userId]);
    const events = await h.call('GET', '/v1/events', { key });
    const types = events.body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['user.created', 'organizationMembership.created', 'scimToken.created']));
  });

  it('4. GET /Users/:id answers the user', async () => {
    const res = await scim('GET', `/Users/${userId}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: userId, userName: 'Runscope300Test@atko.com', active: true });
  });

  it('5. a userName filter finds it; 6. case-insensitively', async () => {
    const exact = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "Runscope300Test@atko.com"')}`);
    expect(exact.body.totalResults).toBe(1);
    expect(exact.body.Resources[0].id).toBe(userId);
    const upper = await scim('GET', `/Users?filter=${encodeURIComponent('userName eq "RUNSCOPE300TEST@ATKO.COM"')}`);
    expect(upper.body.totalResults).toBe(1);
  });

  it('7. creating the same userName again is 409 uniqueness', async () => {
    const res = await scim('POST', '/Users', { ...OKTA_USER, userName: 'runscope300test@ATKO.com' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '409',
      scimType: 'uniqueness',
      detail: expect.any(String),
    });
  });

  it('8. PUT replaces the user (givenName changed)', async () => {
    const res = await scim('PUT', `/Users/${userId}`, { ...OKTA_USER, name: { givenName: 'Another', familyName: 'Tester' } });
    expect(res.status).toBe(200);
    expect(res.body.name).toMatchObject({ givenName: 'Another', familyName: 'Tester' });
    expect(res.body.meta.version).toBe('W/"2"');
    expect((await h.call('GET', `/v1/users/${userId}`, { key })).body.first_name).toBe('Another');
  });

  it('9. PATCH {op:"replace", value:{active:false}} deactivates; a stale If-Match is 412', async () => {
    const body = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: false } }] };
    const stale = await scim('PATCH', `/Users/${userId}`, body, { 'if-match': 'W/"1"' });
    expect(stale.status).toBe(412);
    expect(stale.body).toMatchObject({ status: '412' });
    const res = await scim('PATCH', `/Users/${userId}`, body, { 'if-match': 'W/"2"' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.active).toBe(false);
    // Created by this directory and in no other organization: banned.
    expect((await h.call('GET', `/v1/users/${userId}`, { key })).body.banned).toBe(true);
    const reactivated = await scim('PATCH', `/Users/${userId}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'replace', value: { active: true } }],
    });
    expect(reactivated.body.active).toBe(true);
    expect((await h.call('GET', `/v1/users/${userId}`, { key })).body.banned).toBe(false);
  });

  it('10. an unknown id is 404 in the SCIM error schema', async () => {
    const res = await scim('GET', '/Users/010101010101010101');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'], status: '404' });
  });

  it('paginates with startIndex (1-based) and a clamped count', async () => {
    for (const n of [1, 2, 3]) {
      const res = await scim('POST', '/Users', {
        schemas: [USER_SCHEMA],
        userName: `page${n}@atko.com`,
        name: { givenName: `P${n}`, familyName: 'Page' },
      });
      expect(res.status).toBe(201);
    }
    const page = await scim('GET', '/Users?startIndex=2&count=2');
    expect(page.body).toMatchObject({ totalResults: 4, startIndex: 2, itemsPerPage: 2 });
    expect(page.body.Resources.map((r: { userName: string }) => r.userName)).toEqual(['page1@atko.com', 'page2@atko.com']);
    const big = await scim('GET', '/Users?count=100000');
    expect(big.body.itemsPerPage).toBe(4);
    const countOnly = await scim('GET', '/Users?count=0');
    expect(countOnly.body).toMatchObject({ totalResults: 4, itemsPerPage: 0, Resources: [] });
    const projected = await scim('GET', `/Users?attributes=userName&filter=${encodeURIComponent('name.givenName sw "P"')}`);
    expect(projected.body.totalResults).toBe(3);
    expect(Object.keys(projected.body.Resources[0]).sort()).toEqual(['id', 'schemas', 'userName']);
    const excluded = await scim('GET', `/Users/${userId}?excludedAttributes=emails,name.familyName`);
    expect(excluded.body).not.toHaveProperty('emails');
    expect(excluded.body.name).toEqual({ givenName: 'Another', formatted: 'Another Tester' });
  });

  it('stores and returns the enterprise extension', async () => {
    const res = await scim('POST', '/Users', {
      schemas: [USER_SCHEMA, ENTERPRISE_SCHEMA],
      userName: 'ent@atko.com',
      [ENTERPRISE_SCHEMA]: {
        employeeNumber: '701984',
        department: 'Tour Operations',
        manager: { value: userId, displayName: 'Another Tester' },
      },
    });
    expect(res.status).toBe(201);
    expect(res.body.schemas).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA]);
    expect(res.body[ENTERPRISE_SCHEMA]).toEqual({
      employeeNumber: '701984',
      department: 'Tour Operations',
      manager: { value: userId, displayName: 'Another Tester' },
    });
    const found = await scim('GET', `/Users?filter=${encodeURIComponent(`${ENTERPRISE_SCHEMA}:department eq "tour operations"`)}`);
    expect(found.body.Resources.map((r: { userName: string }) => r.userName)).toEqual(['ent@atko.com']);
  });
});

describe('Okta group push', () => {
  let groupId: string;
  let members: string[];

  beforeAll(async () => {
    const list = await scim('GET', '/Users?count=3');
    members = list.body.Resources.map((r: { id: string }) => r.id);
  });

  it('creates a group with a member, finds it by displayName, renames it', async () => {
    const created = await scim('POST', '/Groups', {
      schemas: [GROUP_SCHEMA],
      displayName: 'Engineering',
      members: [{ value: members[0], display: 'x' }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    groupId = created.body.id;
    expect(created.body).toMatchObject({
      displayName: 'Engineering',
      members: [{ value: members[0] }],
      meta: { resourceType: 'Group', version: 'W/"1"' },
    });
    expect(created.headers.get('location')).toBe(`http://localhost:3000/scim/v2/Groups/${groupId}`);

    const dup = await scim('POST', '/Groups', { schemas: [GROUP_SCHEMA], displayName: 'engineering' });
    expect(dup.status).toBe(409);
    expect(dup.body.scimType).toBe('uniqueness');

    const found = await scim('GET', `/Groups?filter=${encodeURIComponent('displayName eq "Engineering"')}`);
    expect(found.body.Resources.map((g: { id: string }) => g.id)).toEqual([groupId]);

    const renamed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'replace', value: { id: groupId, displayName: 'Eng' } }],
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.displayName).toBe('Eng');
  });

  it('adds and removes members with PATCH (Okta’s shapes)', async () => {
    const added = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [
        {
          op: 'add',
          path: 'members',
          value: [
            { value: members[1], display: 'b' },
            { value: members[2], display: 'c' },
          ],
        },
      ],
    });
    expect(added.body.members.map((m: { value: string }) => m.value).sort()).toEqual([...members].sort());
    const removed = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'remove', path: `members[value eq "${members[0]}"]` }],
    });
    expect(removed.body.members.map((m: { value: string }) => m.value).sort()).toEqual([members[1], members[2]].sort());
    const byMember = await scim(
      'GET',
      `/Groups?filter=${encodeURIComponent(`members.value eq "${members[1]}"`)}&excludedAttributes=members`,
    );
    expect(byMember.body.Resources).toEqual([expect.objectContaining({ id: groupId, displayName: 'Eng' })]);
    expect(byMember.body.Resources[0]).not.toHaveProperty('members');
    const replaced = await scim('PUT', `/Groups/${groupId}`, {
      schemas: [GROUP_SCHEMA],
      displayName: 'Eng',
      members: [{ value: members[0] }],
    });
    expect(replaced.body.members.map((m: { value: string }) => m.value)).toEqual([members[0]]);
  });

  it('refuses a member that is not a user of this directory', async () => {
    const res = await scim('PATCH', `/Groups/${groupId}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'add', path: 'members', value: [{ value: 'user_nope' }] }],
    });
    expect(res.status).toBe(400);
    expect(res.body.scimType).toBe('invalidValue');
  });

  it('deletes the group: 204, then 404', async () => {
    const res = await h.request('DELETE', `/scim/v2/Groups/${groupId}`, { key: token });
    expect(res.status).toBe(204);
    expect((await scim('GET', `/Groups/${groupId}`)).status).toBe(404);
  });

  it('DELETE /Users/:id removes the membership and the user the directory created', async () => {
    const res = await h.request('DELETE', `/scim/v2/Users/${members[0]}`, { key: token });
    expect(res.status).toBe(204);
    expect((await scim('GET', `/Users/${members[0]}`)).status).toBe(404);
    expect((await h.call('GET', `/v1/users/${members[0]}`, { key })).status).toBe(404);
    const types = (await h.call('GET', '/v1/events', { key })).body.data.map((e: { type: string }) => e.type);
    expect(types).toEqual(expect.arrayContaining(['organizationMembership.deleted', 'user.deleted', 'user.banned', 'user.unbanned']));
  });
});
