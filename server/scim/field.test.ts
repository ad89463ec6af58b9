import { describe, expect, it } from 'vitest';
import { sharedHarness } from '../testing/harness';
import { sharedDirectory } from '../testing/scim';
import { PATCH_SCHEMA, USER_SCHEMA } from './discovery';

/**
 * Requests as directories in the field send them beyond their documented main shapes:
 * Entra's email matching filter, conditional reads, PatchOp attribute names in any case.
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
});
