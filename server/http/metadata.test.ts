import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { signUpAttempts, users } from '../db/schema';
import { browserOf } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { createTestUser, eventsOf, signedInClient } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { METADATA_MAX_BYTES, mergeMetadata, metadataProblem, pathDeeperThan } from './metadata';

/** An object nested `depth` levels deep, the object itself being level 1: nest(1) = {}, nest(2) = {"k":{}}. */
function nest(depth: number): Record<string, unknown> {
  let v: Record<string, unknown> = {};
  for (let d = 1; d < depth; d++) v = { k: v };
  return v;
}
/** JSON text of an array nested `depth` levels deep: never built as a value in the test. */
const deepArrayText = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
/** A metadata patch with one new key holding `bytes` ASCII characters. */
const chunk = (key: string, bytes: number) => ({ [key]: 'x'.repeat(bytes) });

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const A = sharedInstance(h);
let n = 0;
const email = () => `meta${++n}@example.com`;
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: A.secret, body });

describe('the metadata bounds (unit)', () => {
  it('measures depth without recursion, however deep, and names the path', () => {
    let deep: unknown = [];
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(pathDeeperThan({ a: deep }, 10)).toEqual(['a', '0', '0', '0', '0', '0', '0', '0', '0', '0']);
    expect(pathDeeperThan(nest(10), 10)).toBeNull();
    expect(pathDeeperThan(nest(11), 10)).toEqual(Array(10).fill('k'));
    expect(metadataProblem({ a: deep })).toBe('too_deep');
  });

  it('counts UTF-8 bytes of the JSON, not characters', () => {
    expect(metadataProblem({ s: '€'.repeat(3000) })).toBe('too_large'); // 9,000 bytes in 3,000 characters
    expect(metadataProblem({ s: 'x'.repeat(METADATA_MAX_BYTES - 8) })).toBeNull(); // {"s":"…"} is 8 bytes of syntax
    expect(metadataProblem({ s: 'x'.repeat(METADATA_MAX_BYTES - 7) })).toBe('too_large');
  });

  it('merges iteratively: nested objects merge, null deletes, anything else replaces; inputs untouched', () => {
    const current = { a: { b: 1, c: { d: 2 } }, e: [1], gone: true };
    const patch = { a: { c: { f: 3 } }, e: { x: 1 }, gone: null };
    expect(mergeMetadata(current, patch)).toEqual({ a: { b: 1, c: { d: 2, f: 3 } }, e: { x: 1 } });
    expect(current).toEqual({ a: { b: 1, c: { d: 2 } }, e: [1], gone: true });
    const proto = mergeMetadata({}, JSON.parse('{"__proto__":{"polluted":1}}') as Record<string, unknown>);
    expect(Object.keys(proto)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('FAPI sign-up', () => {
  const password = 'correct horse battery';
  const signUp = (raw: string) => {
    h.clock.advance(10_000); // past the per-IP sign-up limit
    return browserOf(h, A).call('POST', '/v1/client/sign_ups', { raw });
  };

  it('refuses unsafe_metadata nested 4,100 deep (an 8 KB body) with 422, not 500, and stores nothing', async () => {
    const address = email();
    const raw = `{"email_address":"${address}","password":"${password}","unsafe_metadata":{"a":${deepArrayText(4100)}}}`;
    expect(raw.length).toBeLessThan(8400);
    const res = await signUp(raw);
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'unsafe_metadata', reason: 'too_deep' });
    expect(await h.runtime.deps.db.select().from(signUpAttempts).where(eq(signUpAttempts.emailAddress, address))).toEqual([]);
  });

  it('refuses 900 KB of unsafe_metadata with 422 too_large', async () => {
    const res = await signUp(JSON.stringify({ email_address: email(), password, unsafe_metadata: chunk('blob', 900 * 1024) }));
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'unsafe_metadata', reason: 'too_large' });
  });

  it('accepts depth 10 and refuses depth 11', async () => {
    const ok = await signUp(JSON.stringify({ email_address: email(), password, unsafe_metadata: nest(10) }));
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.response.unsafe_metadata).toEqual(nest(10));
    const deep = await signUp(JSON.stringify({ email_address: email(), password, unsafe_metadata: nest(11) }));
    expectError(deep, 422, 'VALIDATION_FAILED', { param: 'unsafe_metadata', reason: 'too_deep' });
  });
});

describe('PATCH /v1/me', () => {
  it('refuses a 4,100-deep unsafe_metadata with 422, not 500', async () => {
    const { b } = await signedInClient(h, A, await createTestUser(h, A, { email_address: [email()] }));
    const res = await b.call('PATCH', '/v1/me', { raw: `{"unsafe_metadata":{"a":${deepArrayText(4100)}}}` });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'unsafe_metadata', reason: 'too_deep' });
  });

  it('cannot grow unsafe_metadata past 8 KiB patch by patch: the crossing patch is 422 and nothing changes', async () => {
    const userId = await createTestUser(h, A, { email_address: [email()] });
    const { b } = await signedInClient(h, A, userId);
    for (const key of ['a', 'b'])
      expect((await b.call('PATCH', '/v1/me', { body: { unsafe_metadata: chunk(key, 3000) } })).status).toBe(200);
    const before = (await eventsOf(h, A.instanceId, 'user.updated')).length;
    const res = await b.call('PATCH', '/v1/me', { body: { first_name: 'Eve', unsafe_metadata: chunk('c', 3000) } });
    const e = expectError(res, 422, 'VALIDATION_FAILED', { param: 'unsafe_metadata', reason: 'too_large' });
    expect(e.message).toContain('after merging');
    const [row] = await h.runtime.deps.db.select().from(users).where(eq(users.id, userId));
    expect(Object.keys(row!.unsafeMetadata)).toEqual(['a', 'b']);
    expect(row!.firstName).toBeNull();
    expect(await eventsOf(h, A.instanceId, 'user.updated')).toHaveLength(before);
    // Deleting a key makes room again.
    const swapped = await b.call('PATCH', '/v1/me', { body: { unsafe_metadata: { a: null, ...chunk('c', 3000) } } });
    expect(swapped.status).toBe(200);
    expect(Object.keys(swapped.body.unsafe_metadata).sort()).toEqual(['b', 'c']);
  });
});

describe('BAPI users', () => {
  it('bounds public, private and unsafe metadata on create: depth 10 accepted, 11 refused', async () => {
    for (const param of ['public_metadata', 'private_metadata', 'unsafe_metadata']) {
      const ok = await bapi('POST', '/v1/users', { email_address: [email()], [param]: nest(10) });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body[param]).toEqual(nest(10));
      expectError(await bapi('POST', '/v1/users', { email_address: [email()], [param]: nest(11) }), 422, 'VALIDATION_FAILED', {
        param,
        reason: 'too_deep',
      });
      expectError(await bapi('POST', '/v1/users', { email_address: [email()], [param]: chunk('x', 9000) }), 422, 'VALIDATION_FAILED', {
        param,
        reason: 'too_large',
      });
    }
  });

  it('checks private_metadata after the merge on PATCH, leaving the stored value unchanged', async () => {
    const id = await createTestUser(h, A, { email_address: [email()], private_metadata: chunk('a', 5000) });
    const res = await bapi('PATCH', `/v1/users/${id}`, { private_metadata: chunk('b', 5000) });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'private_metadata', reason: 'too_large' });
    expect(Object.keys((await bapi('GET', `/v1/users/${id}`)).body.private_metadata)).toEqual(['a']);
    expectError(await bapi('PATCH', `/v1/users/${id}`, { public_metadata: nest(11) }), 422, 'VALIDATION_FAILED', {
      param: 'public_metadata',
      reason: 'too_deep',
    });
  });

  it('refuses any body nested deeper than the input limit, naming the field, before a schema sees it', async () => {
    const res = await h.call('POST', '/v1/users', {
      key: A.secret,
      raw: `{"email_address":${deepArrayText(200_000)}}`,
      headers: { 'content-type': 'application/json' },
    });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'too_deep' });
  });
});

describe('organizations, memberships and invitations (BAPI)', () => {
  it('bounds organization metadata on create and after the merge on update', async () => {
    expectError(await bapi('POST', '/v1/organizations', { name: 'Deep', public_metadata: nest(11) }), 422, 'VALIDATION_FAILED', {
      param: 'public_metadata',
      reason: 'too_deep',
    });
    const created = await bapi('POST', '/v1/organizations', {
      name: 'Acme',
      public_metadata: nest(10),
      private_metadata: chunk('a', 5000),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const org = created.body.id as string;
    const res = await bapi('PATCH', `/v1/organizations/${org}`, { name: 'Renamed', private_metadata: chunk('b', 5000) });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'private_metadata', reason: 'too_large' });
    const after = (await bapi('GET', `/v1/organizations/${org}`)).body;
    expect(after.name).toBe('Acme');
    expect(Object.keys(after.private_metadata)).toEqual(['a']);
    expectError(await bapi('PATCH', `/v1/organizations/${org}`, { public_metadata: nest(11) }), 422, 'VALIDATION_FAILED', {
      param: 'public_metadata',
      reason: 'too_deep',
    });
  });

  it('bounds membership metadata on create and after the merge on update', async () => {
    const org = (await bapi('POST', '/v1/organizations', { name: 'Members' })).body.id as string;
    const userId = await createTestUser(h, A, { email_address: [email()] });
    const deep = await bapi('POST', `/v1/organizations/${org}/memberships`, {
      user_id: userId,
      role: 'org:member',
      public_metadata: nest(11),
    });
    expectError(deep, 422, 'VALIDATION_FAILED', { param: 'public_metadata', reason: 'too_deep' });
    const added = await bapi('POST', `/v1/organizations/${org}/memberships`, {
      user_id: userId,
      role: 'org:member',
      public_metadata: nest(10),
    });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    expect((await bapi('PATCH', `/v1/organizations/${org}/memberships/${userId}`, { public_metadata: chunk('a', 5000) })).status).toBe(200);
    const res = await bapi('PATCH', `/v1/organizations/${org}/memberships/${userId}`, { public_metadata: chunk('b', 5000) });
    expectError(res, 422, 'VALIDATION_FAILED', { param: 'public_metadata', reason: 'too_large' });
    const list = (await bapi('GET', `/v1/organizations/${org}/memberships`)).body.data as {
      public_user_data: { user_id: string };
      public_metadata: object;
    }[];
    expect(Object.keys(list.find((m) => m.public_user_data.user_id === userId)!.public_metadata).sort()).toEqual(['a', 'k']);
    expectError(
      await bapi('PATCH', `/v1/organizations/${org}/memberships/${userId}`, { private_metadata: nest(11) }),
      422,
      'VALIDATION_FAILED',
      { param: 'private_metadata', reason: 'too_deep' },
    );
  });

  it('bounds invitation metadata', async () => {
    const org = (await bapi('POST', '/v1/organizations', { name: 'Invites' })).body.id as string;
    const invite = (body: Record<string, unknown>) =>
      bapi('POST', `/v1/organizations/${org}/invitations`, { email_address: email(), notify: false, ...body });
    expectError(await invite({ private_metadata: nest(11) }), 422, 'VALIDATION_FAILED', { param: 'private_metadata', reason: 'too_deep' });
    expectError(await invite({ public_metadata: chunk('x', 9000) }), 422, 'VALIDATION_FAILED', {
      param: 'public_metadata',
      reason: 'too_large',
    });
    expect((await invite({ public_metadata: nest(10) })).status).toBe(200);
  });
});
