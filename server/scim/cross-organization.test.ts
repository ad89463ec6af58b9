import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memberAccess } from '../organizations/memberships';
import { createHarness, type TestHarness } from '../testing/harness';
import { createDirectory, scimCaller } from '../testing/scim';
import { PATCH_SCHEMA, USER_SCHEMA } from './discovery';

/**
 * A directory token speaks for one organization: it must not reach the people of another
 * (issue #33, item 5). Acme's Okta provisions over SCIM as Okta does; Globex is another
 * organization of the same instance, with its own verified domain and its admin Bob.
 */
let h: TestHarness;
let key: string;
let instanceId: string;
let acme: string;
let token: string;
let globex: string;
const scim = scimCaller(
  () => h,
  () => token,
);
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key, ...(body === undefined ? {} : { body }) });

beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
  ({ key, instanceId, orgId: acme, token } = await createDirectory(h, 'Acme', 'Okta'));
  globex = (await bapi('POST', '/v1/organizations', { name: 'Globex' })).body.id;
  expect((await bapi('POST', `/v1/organizations/${globex}/domains`, { name: 'globex.test', verified: true })).status).toBe(200);
  expect((await bapi('POST', `/v1/organizations/${acme}/domains`, { name: 'acme.test', verified: true })).status).toBe(200);
});
afterAll(() => h.close());

/** A user of the instance with a live session, member of the given organizations. */
async function existingUser(address: string, orgs: string[], role = 'org:member') {
  const user = (await bapi('POST', '/v1/users', { email_address: [address], first_name: 'Own', last_name: 'Name' })).body;
  for (const org of orgs) expect((await bapi('POST', `/v1/organizations/${org}/memberships`, { user_id: user.id, role })).status).toBe(200);
  const session = (await bapi('POST', '/v1/sessions', { user_id: user.id })).body;
  return {
    id: user.id as string,
    sessionsVersion: user.sessions_version as number,
    session: session as { id: string; refresh_token: string },
  };
}

/** The user's session still refreshes (nothing revoked it). */
const refresh = (s: { id: string; refresh_token: string }) =>
  bapi('POST', `/v1/sessions/${s.id}/refresh`, { refresh_token: s.refresh_token });

/** What Okta sends to create a user. */
const oktaUser = (userName: string, givenName = 'Mallory', active = true) => ({
  schemas: [USER_SCHEMA],
  userName,
  name: { givenName, familyName: 'Intruder' },
  emails: [{ primary: true, value: userName, type: 'work' }],
  displayName: `${givenName} Intruder`,
  externalId: `okta-${userName}`,
  active,
});
const deactivation = { schemas: [PATCH_SCHEMA], Operations: [{ op: 'replace', value: { active: false } }] };
const UNIQUENESS = {
  schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
  status: '409',
  scimType: 'uniqueness',
  detail: expect.any(String),
};
const byUserName = (userName: string) => scim('GET', `/Users?filter=${encodeURIComponent(`userName eq "${userName}"`)}`);

describe('another organization’s people are out of a directory’s reach', () => {
  it('POST /Users with the address of another organization’s admin is 409 uniqueness, and nothing changes', async () => {
    const bob = await existingUser('bob@globex.test', [globex], 'org:admin');
    for (const active of [true, false]) {
      const res = await scim('POST', '/Users', oktaUser('bob@globex.test', 'Mallory', active));
      expect(res.status, JSON.stringify(res.body)).toBe(409);
      expect(res.body).toEqual(UNIQUENESS);
    }
    expect((await byUserName('bob@globex.test')).body.totalResults).toBe(0);
    const after = (await bapi('GET', `/v1/users/${bob.id}`)).body;
    expect(after).toMatchObject({ first_name: 'Own', last_name: 'Name', banned: false, sessions_version: bob.sessionsVersion });
    expect(await memberAccess(h.runtime.deps.db, instanceId, acme, bob.id)).toBeNull();
    expect(await memberAccess(h.runtime.deps.db, instanceId, globex, bob.id)).toMatchObject({ role: 'org:admin' });
    expect((await refresh(bob.session)).status).toBe(200);

    // Nor can the directory reach Bob by his id: he is no user of it.
    expect((await scim('GET', `/Users/${bob.id}`)).status).toBe(404);
    expect((await scim('PATCH', `/Users/${bob.id}`, deactivation)).status).toBe(404);
    expect((await scim('PUT', `/Users/${bob.id}`, oktaUser('bob@globex.test', 'Renamed', false))).status).toBe(404);
    expect((await h.request('DELETE', `/scim/v2/Users/${bob.id}`, { key: token })).status).toBe(404);
    expect((await bapi('GET', `/v1/users/${bob.id}`)).body).toMatchObject({ first_name: 'Own', sessions_version: bob.sessionsVersion });
  });

  it('an existing user at a domain no organization verified is not linked either', async () => {
    const carol = await existingUser('carol@unclaimed.test', []);
    const res = await scim('POST', '/Users', oktaUser('carol@unclaimed.test'));
    expect(res.status).toBe(409);
    expect(res.body).toEqual(UNIQUENESS);
    expect(await memberAccess(h.runtime.deps.db, instanceId, acme, carol.id)).toBeNull();
    expect((await bapi('GET', `/v1/users/${carol.id}`)).body.first_name).toBe('Own');
  });

  it('a new address at another organization’s verified domain is not the directory’s to create, nor to rename to', async () => {
    const created = await scim('POST', '/Users', oktaUser('newhire@globex.test'));
    expect(created.status).toBe(409);
    expect(created.body).toEqual(UNIQUENESS);
    expect((await bapi('GET', `/v1/users?email_address=${encodeURIComponent('newhire@globex.test')}`)).body.data).toEqual([]);

    const dave = await scim('POST', '/Users', oktaUser('dave@elsewhere.test', 'Dave'));
    expect(dave.status).toBe(201);
    const renamed = await scim('PUT', `/Users/${dave.body.id}`, oktaUser('dave@globex.test', 'Dave'));
    expect(renamed.status).toBe(409);
    expect(renamed.body).toEqual(UNIQUENESS);
    expect((await scim('GET', `/Users/${dave.body.id}`)).body.userName).toBe('dave@elsewhere.test');
  });
});

describe('the users a directory owns', () => {
  it('an existing user at the organization’s verified domain is linked; deactivation suspends this membership only and ends their sessions', async () => {
    const erin = await existingUser('erin@acme.test', [globex]);
    const linked = await scim('POST', '/Users', oktaUser('Erin@acme.test', 'Erin'));
    expect(linked.status, JSON.stringify(linked.body)).toBe(201);
    expect(linked.body).toMatchObject({ id: erin.id, name: { givenName: 'Erin', familyName: 'Intruder' } });
    expect(await memberAccess(h.runtime.deps.db, instanceId, acme, erin.id)).toMatchObject({ role: 'org:member' });

    const off = await scim('PATCH', `/Users/${erin.id}`, deactivation);
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    expect(off.body.active).toBe(false);
    expect(await memberAccess(h.runtime.deps.db, instanceId, acme, erin.id)).toBeNull();
    expect(await memberAccess(h.runtime.deps.db, instanceId, globex, erin.id)).toMatchObject({ role: 'org:member' });
    const refused = await refresh(erin.session);
    expect(refused.status).toBe(401);
    expect(refused.body.errors[0].code).toBe('SESSION_REVOKED');
    expect((await bapi('GET', `/v1/users/${erin.id}`)).body.banned).toBe(false);
  });

  it('once the domain is no longer verified, a linked user is no longer owned: deactivation only suspends the membership, names stay theirs', async () => {
    const domain = (await bapi('POST', `/v1/organizations/${acme}/domains`, { name: 'acme-labs.test', verified: true })).body.id;
    const frank = await existingUser('frank@acme-labs.test', []);
    expect((await scim('POST', '/Users', oktaUser('frank@acme-labs.test', 'Frank'))).status).toBe(201);
    expect((await bapi('PATCH', `/v1/organizations/${acme}/domains/${domain}`, { verified: false })).status).toBe(200);

    const put = await scim('PUT', `/Users/${frank.id}`, { ...oktaUser('frank@acme-labs.test', 'Renamed'), displayName: 'Directory name' });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body).toMatchObject({ displayName: 'Directory name', name: { givenName: 'Frank' } });
    const off = await scim('PATCH', `/Users/${frank.id}`, deactivation);
    expect(off.body.active).toBe(false);
    expect(await memberAccess(h.runtime.deps.db, instanceId, acme, frank.id)).toBeNull();
    expect((await refresh(frank.session)).status).toBe(200);
    expect((await bapi('GET', `/v1/users/${frank.id}`)).body).toMatchObject({
      first_name: 'Frank',
      banned: false,
      sessions_version: frank.sessionsVersion,
    });
  });
});
