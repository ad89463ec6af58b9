import { describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { sharedDirectory } from '../testing/scim';
import { PATCH_SCHEMA, USER_SCHEMA } from './discovery';

/**
 * Requests as directories in the field send them beyond their documented main shapes:
 * Entra's email matching filter, conditional reads, PatchOp attribute names in any case,
 * userNames that are logins rather than addresses (OneLogin, JumpCloud, Entra's validator).
 */
const h = sharedHarness();
const dir = sharedDirectory(h, 'Fieldwork', 'Field');
const q = (filter: string) => encodeURIComponent(filter);
const user = (userName: string) => ({
  schemas: [USER_SCHEMA],
  userName,
  active: true,
  emails: [{ primary: true, type: 'work', value: userName }],
});

describe('SCIM as directories send it', () => {
  it('Entra’s email matching: emails[type eq "work"].value eq "…" reads as emails[type eq "work" and value eq "…"]', async () => {
    const created = await dir.scim('POST', '/Users', user('match@fieldwork.test'));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const found = await dir.scim('GET', `/Users?filter=${q('emails[type eq "work"].value eq "match@fieldwork.test"')}`);
    expect(found.status, JSON.stringify(found.body)).toBe(200);
    expect(found.body.Resources.map((r: { id: string }) => r.id)).toEqual([created.body.id]);
    const none = await dir.scim('GET', `/Users?filter=${q('emails[type eq "home"].value eq "match@fieldwork.test"')}`);
    expect(none.body.totalResults).toBe(0);
    expect((await dir.scim('GET', `/Users?filter=${q('emails[type eq "work"].value.x eq "a"')}`)).body).toMatchObject({
      status: '400',
      scimType: 'invalidFilter',
    });
  });

  it('If-None-Match with the current ETag answers 304 without a body; a stale one the resource', async () => {
    const created = await dir.scim('POST', '/Users', user('etag@fieldwork.test'));
    const etag = created.headers.get('etag')!;
    expect(etag).toMatch(/^W\/"\d+"$/);
    const same = await dir.scim('GET', `/Users/${created.body.id}`, undefined, { 'if-none-match': etag });
    expect(same.status).toBe(304);
    expect(same.headers.get('etag')).toBe(etag);
    expect([null, undefined, '']).toContain(same.body);
    await dir.scim('PATCH', `/Users/${created.body.id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [{ op: 'replace', path: 'displayName', value: 'Changed' }],
    });
    const changed = await dir.scim('GET', `/Users/${created.body.id}`, undefined, { 'if-none-match': etag });
    expect(changed.status).toBe(200);
    expect(changed.body.displayName).toBe('Changed');
  });

  it('a PatchOp’s own attribute names in any case (operations, OP, Path, VALUE)', async () => {
    const created = await dir.scim('POST', '/Users', user('case@fieldwork.test'));
    const res = await dir.scim('PATCH', `/Users/${created.body.id}`, {
      SCHEMAS: [PATCH_SCHEMA],
      operations: [{ OP: 'Replace', Path: 'active', VALUE: false }],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.active).toBe(false);
  });

  it('a userName that is not an address is the username; the address comes from emails, primary first', async () => {
    const created = await dir.scim('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'jdoe',
      emails: [
        { value: 'jdoe@home.test', type: 'home' },
        { value: 'jdoe@fieldwork.test', type: 'work', primary: true },
      ],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.userName).toBe('jdoe');
    const id = created.body.id;
    const user = await h.call('GET', `/v1/users/${id}`, { key: dir.key });
    expect(user.body.username).toBe('jdoe');
    expect(user.body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual(['jdoe@fieldwork.test']);
    // Unique in the directory, case-insensitively; found by `userName eq` in any case.
    expect((await dir.scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: 'JDOE' })).body).toMatchObject({
      status: '409',
      scimType: 'uniqueness',
    });
    const found = await dir.scim('GET', `/Users?filter=${q('userName eq "JDoe"')}`);
    expect(found.body.Resources.map((r: { id: string }) => r.id)).toEqual([id]);
    // A new login renames the username; a new primary address replaces the old one.
    const renamed = await dir.scim('PATCH', `/Users/${id}`, {
      schemas: [PATCH_SCHEMA],
      Operations: [
        { op: 'replace', path: 'userName', value: 'john.doe' },
        { op: 'replace', path: 'emails[type eq "work"].value', value: 'john.doe@fieldwork.test' },
      ],
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    const after = await h.call('GET', `/v1/users/${id}`, { key: dir.key });
    expect(after.body.username).toBe('john.doe');
    expect(after.body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual(['john.doe@fieldwork.test']);
  });

  it('Microsoft’s "userName":"someone" without emails: a user with that username only; no way to sign in is 400', async () => {
    const created = await dir.scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: 'someone', active: true });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const user = await h.call('GET', `/v1/users/${created.body.id}`, { key: dir.key });
    expect(user.body).toMatchObject({ username: 'someone', email_addresses: [] });
    expect((await dir.scim('POST', '/Users', { schemas: [USER_SCHEMA], userName: 'Some One' })).body).toMatchObject({
      status: '400',
      scimType: 'invalidValue',
    });
  });

  it('a login another user of the instance holds as username: the user is created without one, with its address', async () => {
    expect((await h.call('POST', '/v1/users', { key: dir.key, body: { username: 'taken_login' } })).status).toBe(200);
    const created = await dir.scim('POST', '/Users', {
      schemas: [USER_SCHEMA],
      userName: 'taken_login',
      emails: [{ value: 'taken@fieldwork.test', primary: true }],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.userName).toBe('taken_login');
    const user = await h.call('GET', `/v1/users/${created.body.id}`, { key: dir.key });
    expect(user.body).toMatchObject({ username: null, email_addresses: [{ email_address: 'taken@fieldwork.test' }] });
  });
});
