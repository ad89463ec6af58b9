import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiHandler } from '../api';
import { apiKeys } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { createRuntime } from '../runtime';
import { eventsSince } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { createTestUser } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

let h: TestHarness;
let i: Awaited<ReturnType<TestHarness['createInstance']>>;
let other: Awaited<ReturnType<TestHarness['createInstance']>>;
let userId: string;
let orgId: string;

beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
  i = await h.createInstance();
  other = await h.createInstance();
  userId = await createTestUser(h, i, { email_address: ['key.owner@example.com'] });
  orgId = (await h.call('POST', '/v1/organizations', { key: i.secret, body: { name: 'Acme' } })).body.id;
});
afterAll(() => h.close());

const bapi = (method: string, path: string, body?: unknown, key = i.secret) => h.call(method, path, { key, body });
const verify = (secret: unknown, key = i.secret) => bapi('POST', '/v1/api_keys/verify', { secret }, key);

async function mint(body: Record<string, unknown> = {}) {
  const res = await bapi('POST', '/v1/api_keys', { subject: userId, name: 'CI', ...body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

describe('POST /v1/api_keys', () => {
  it('mints a key for a user: every field, the ak_ secret once, a digest at rest', async () => {
    const key = await mint({
      description: 'Deploys',
      scopes: ['write:deploys', 'read:builds', 'read:builds'],
      claims: { team: 'ops', tier: 2 },
      expires_in_seconds: 3600,
      created_by: userId,
    });
    expect(key).toEqual({
      object: 'api_key',
      id: expect.stringMatching(/^apik_[0-9A-Z]{26}$/),
      subject: userId,
      name: 'CI',
      description: 'Deploys',
      scopes: ['read:builds', 'write:deploys'],
      claims: { team: 'ops', tier: 2 },
      expiration: h.clock.now() + 3600_000,
      created_by: userId,
      created_at: h.clock.now(),
      updated_at: h.clock.now(),
      last_used_at: null,
      revoked: false,
      revocation_reason: null,
      secret: expect.stringMatching(/^ak_[A-Za-z0-9_-]{43}$/),
    });
    const [row] = await h.runtime.deps.db.select().from(apiKeys).where(eq(apiKeys.id, key.id));
    expect(row!.digest).toBe(sha256Hex(key.secret));
    expect(JSON.stringify(row)).not.toContain(key.secret);

    const got = await bapi('GET', `/v1/api_keys/${key.id}`);
    expect(got.body).toEqual({ ...key, secret: undefined });
    expect(got.body).not.toHaveProperty('secret');
    expectError(await bapi('GET', `/v1/api_keys/${key.id}/secret`), 404, 'NOT_FOUND');
  });

  it('mints for an organization, with defaults: no description, scopes, claims nor expiry', async () => {
    const key = await mint({ subject: orgId });
    expect(key).toMatchObject({ subject: orgId, description: null, scopes: [], claims: null, expiration: null, created_by: null });
  });

  it.each([
    [{ subject: undefined }, 'subject', 'required'],
    [{ subject: 'usr_nope' }, 'subject', 'not_found'],
    [{ subject: '' }, 'subject', 'too_small'],
    [{ subject: 'user_01J0000000000000000000000Z' }, 'subject', 'not_found'],
    [{ name: undefined }, 'name', 'required'],
    [{ name: '   ' }, 'name', 'too_small'],
    [{ name: 'x'.repeat(257) }, 'name', 'too_big'],
    [{ name: 7 }, 'name', 'invalid_type'],
    [{ description: 'x'.repeat(1025) }, 'description', 'too_big'],
    [{ scopes: 'read' }, 'scopes', 'invalid_type'],
    [{ scopes: ['has space'] }, 'scopes.0', 'invalid_format'],
    [{ scopes: [''] }, 'scopes.0', 'too_small'],
    [{ scopes: Array.from({ length: 101 }, (_, n) => `s${n}`) }, 'scopes', 'too_big'],
    [{ claims: [1] }, 'claims', 'invalid_type'],
    [{ claims: { big: 'x'.repeat(9000) } }, 'claims', 'too_large'],
    [{ claims: { a: { b: { c: { d: { e: { f: { g: { h: { i: { j: { k: 1 } } } } } } } } } } } }, 'claims', 'too_deep'],
    [{ expires_in_seconds: 59 }, 'expires_in_seconds', 'too_small'],
    [{ expires_in_seconds: 1.5 }, 'expires_in_seconds', 'invalid_type'],
    [{ expires_in_seconds: 11 * 365 * 86400 }, 'expires_in_seconds', 'too_big'],
    [{ created_by: 'user_01J0000000000000000000000Z' }, 'created_by', 'not_found'],
    [{ secret: 'ak_mine' }, 'secret', 'unknown_field'],
  ])('refuses %j: 422 %s %s', async (patch, param, reason) => {
    const res = await bapi('POST', '/v1/api_keys', { subject: userId, name: 'CI', ...patch });
    expectError(res, 422, 'VALIDATION_FAILED', { param, reason });
  });

  it('refuses another instance’s user as subject', async () => {
    const stranger = await createTestUser(h, other, { email_address: ['stranger@example.com'] });
    expectError(await bapi('POST', '/v1/api_keys', { subject: stranger, name: 'x' }), 422, 'VALIDATION_FAILED', {
      param: 'subject',
      reason: 'not_found',
    });
  });

  it('needs api_keys:write to mint and api_keys:read to verify', async () => {
    const reader = await h.createKey(i.instanceId, 'api_keys:read');
    expectError(await bapi('POST', '/v1/api_keys', { subject: userId, name: 'x' }, reader.secret), 403, 'SCOPE_MISSING', {
      required_scope: 'api_keys:write',
    });
    const users = await h.createKey(i.instanceId, 'users:read');
    expectError(await verify('ak_x', users.secret), 403, 'SCOPE_MISSING', { required_scope: 'api_keys:read' });
  });

  it('emits apiKey.created without the secret and audits the creation', async () => {
    h.clock.advance(1);
    const since = h.clock.now();
    const key = await mint({ name: 'Evented' });
    const events = await eventsSince(h, i.instanceId, since);
    expect(events.map((e) => e.type)).toEqual(['apiKey.created']);
    expect(events[0]!.data).toEqual({ ...key, secret: undefined });
    expect(JSON.stringify(events[0]!.data)).not.toContain(key.secret);
    const log = await bapi('GET', `/v1/audit_logs?action=api_key.created&target=${key.id}`);
    expect(log.body.data).toHaveLength(1);
    expect(log.body.data[0]).toMatchObject({ actor: `key:${i.keyId}`, actor_kind: 'secret_key' });
    expect(JSON.stringify(log.body.data[0])).not.toContain(key.secret);
  });
});

describe('POST /v1/api_keys/verify', () => {
  it('answers a valid key with its subject, scopes and claims, never the secret', async () => {
    const key = await mint({ scopes: ['read:x'], claims: { plan: 'pro' } });
    const res = await verify(key.secret);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'api_key',
      id: key.id,
      subject: userId,
      scopes: ['read:x'],
      claims: { plan: 'pro' },
      revoked: false,
    });
    expect(res.body).not.toHaveProperty('secret');
  });

  it('unknown: a made-up secret, a malformed one, another instance’s key', async () => {
    const key = await mint();
    expectError(await verify(`ak_${'A'.repeat(43)}`), 404, 'API_KEY_INVALID', { reason: 'unknown' });
    expectError(await verify('not-a-key'), 404, 'API_KEY_INVALID', { reason: 'unknown' });
    expectError(await verify(key.secret, other.secret), 404, 'API_KEY_INVALID', { reason: 'unknown' });
    // Another instance cannot read, change or revoke it either.
    expectError(await bapi('GET', `/v1/api_keys/${key.id}`, undefined, other.secret), 404, 'NOT_FOUND');
    expectError(await bapi('POST', `/v1/api_keys/${key.id}/revoke`, {}, other.secret), 404, 'NOT_FOUND');
    expect((await bapi('GET', '/v1/api_keys', undefined, other.secret)).body.data.map((k: { id: string }) => k.id)).not.toContain(key.id);
    expect((await verify(key.secret)).status).toBe(200);
  });

  it('refuses a body without a string secret with 422', async () => {
    expectError(await bapi('POST', '/v1/api_keys/verify', {}), 422, 'VALIDATION_FAILED', { param: 'secret', reason: 'required' });
    expectError(await verify(42), 422, 'VALIDATION_FAILED', { param: 'secret', reason: 'invalid_type' });
  });

  it('revoked: right after the revocation, with the reason; apiKey.revoked and an audit entry', async () => {
    const key = await mint();
    expect((await verify(key.secret)).status).toBe(200);
    h.clock.advance(1);
    const since = h.clock.now();
    const revoked = await bapi('POST', `/v1/api_keys/${key.id}/revoke`, { revocation_reason: 'leaked in a log' });
    expect(revoked.body).toMatchObject({ id: key.id, revoked: true, revocation_reason: 'leaked in a log' });
    expectError(await verify(key.secret), 404, 'API_KEY_INVALID', { reason: 'revoked' });
    const events = await eventsSince(h, i.instanceId, since);
    expect(events.map((e) => e.type)).toEqual(['apiKey.revoked']);
    expect(events[0]!.data).toEqual(revoked.body);
    // Revoking again changes nothing and emits nothing.
    expect((await bapi('POST', `/v1/api_keys/${key.id}/revoke`, { revocation_reason: 'again' })).body).toEqual(revoked.body);
    expect(await eventsSince(h, i.instanceId, since)).toHaveLength(1);
    const log = await bapi('GET', `/v1/audit_logs?action=api_key.revoked&target=${key.id}`);
    expect(log.body.data).toHaveLength(1);
  });

  it('expired: once the clock passes expires_in_seconds', async () => {
    const key = await mint({ expires_in_seconds: 120 });
    h.clock.advance(119_000);
    expect((await verify(key.secret)).status).toBe(200);
    h.clock.advance(1_000);
    expectError(await verify(key.secret), 404, 'API_KEY_INVALID', { reason: 'expired' });
  });

  it('keeps last_used_at to the minute with one write a minute', async () => {
    const key = await mint();
    const first = h.clock.now();
    expect((await verify(key.secret)).body.last_used_at).toBe(first);
    await expect.poll(async () => (await bapi('GET', `/v1/api_keys/${key.id}`)).body.last_used_at).toBe(first);
    h.clock.advance(30_000);
    expect((await verify(key.secret)).body.last_used_at).toBe(first);
    expect((await bapi('GET', `/v1/api_keys/${key.id}`)).body.last_used_at).toBe(first);
    h.clock.advance(31_000);
    const later = h.clock.now();
    expect((await verify(key.secret)).body.last_used_at).toBe(later);
    await expect.poll(async () => (await bapi('GET', `/v1/api_keys/${key.id}`)).body.last_used_at).toBe(later);
  });

  it('a revocation on one node is seen by a second node sharing the database within one second', async () => {
    const second = await createRuntime(h.runtime.deps.config, { database: h.runtime.database, clock: h.clock });
    const node2 = createApiHandler(second);
    const verifyOn2 = async (secret: string) => {
      const res = await node2(
        new Request('http://localhost:3000/v1/api_keys/verify', {
          method: 'POST',
          headers: { authorization: `Bearer ${i.secret}`, 'content-type': 'application/json' },
          body: JSON.stringify({ secret }),
        }),
      );
      return { status: res.status, body: (await res.json()) as { errors?: { meta: { reason: string } }[] } };
    };
    try {
      const key = await mint();
      expect((await verifyOn2(key.secret)).status).toBe(200); // node 2 now holds it in its cache
      expect((await bapi('POST', `/v1/api_keys/${key.id}/revoke`, {})).status).toBe(200);
      expectError(await verify(key.secret), 404, 'API_KEY_INVALID', { reason: 'revoked' }); // node 1 at once
      h.clock.advance(1000);
      const seen = await verifyOn2(key.secret);
      expect(seen.status).toBe(404);
      expect(seen.body.errors![0]!.meta.reason).toBe('revoked');
    } finally {
      await second.deps.passwords.close();
    }
  });
});

describe('list, get, update', () => {
  it('lists newest first with a cursor, filtered by subject and revoked', async () => {
    const u = await createTestUser(h, i, { email_address: ['lister@example.com'] });
    const made = [];
    for (let n = 0; n < 3; n++) made.push(await mint({ subject: u, name: `k${n}` }));
    await bapi('POST', `/v1/api_keys/${made[0].id}/revoke`, {});
    const page1 = await bapi('GET', `/v1/api_keys?subject=${u}&limit=2`);
    expect(page1.body.data.map((k: { name: string }) => k.name)).toEqual(['k2', 'k1']);
    expect(page1.body).toMatchObject({ has_more: true, next_cursor: made[1].id });
    const page2 = await bapi('GET', `/v1/api_keys?subject=${u}&limit=2&starting_after=${page1.body.next_cursor}`);
    expect(page2.body).toEqual({ data: [expect.objectContaining({ name: 'k0', revoked: true })], has_more: false, next_cursor: null });
    expect((await bapi('GET', `/v1/api_keys?subject=${u}&revoked=false`)).body.data).toHaveLength(2);
    expect((await bapi('GET', `/v1/api_keys?subject=${u}&revoked=true`)).body.data).toHaveLength(1);
    expectError(await bapi('GET', '/v1/api_keys?revoked=maybe'), 422, 'VALIDATION_FAILED', { param: 'revoked' });
    expectError(await bapi('GET', '/v1/api_keys?limit=0'), 422, 'VALIDATION_FAILED', { param: 'limit' });
  });

  it('PATCH changes name, description, scopes and claims; verify sees them at once', async () => {
    const key = await mint({ scopes: ['a'], claims: { x: 1 } });
    const res = await bapi('PATCH', `/v1/api_keys/${key.id}`, { name: 'Renamed', description: null, scopes: ['b', 'c'], claims: null });
    expect(res.body).toMatchObject({ name: 'Renamed', description: null, scopes: ['b', 'c'], claims: null });
    expect((await verify(key.secret)).body).toMatchObject({ name: 'Renamed', scopes: ['b', 'c'], claims: null });
    expectError(await bapi('PATCH', `/v1/api_keys/${key.id}`, { subject: orgId }), 422, 'VALIDATION_FAILED', {
      param: 'subject',
      reason: 'unknown_field',
    });
    expectError(await bapi('PATCH', `/v1/api_keys/${key.id}`, { expiration: 1 }), 422, 'VALIDATION_FAILED', { reason: 'unknown_field' });
    expectError(await bapi('PATCH', '/v1/api_keys/apik_01J0000000000000000000000Z', { name: 'x' }), 404, 'NOT_FOUND');
    const log = await bapi('GET', `/v1/audit_logs?action=api_key.updated&target=${key.id}`);
    expect(log.body.data[0].details).toMatchObject({ fields: ['claims', 'description', 'name', 'scopes'] });
  });

  it('caps a subject at 100 live keys', async () => {
    const u = await createTestUser(h, i, { email_address: ['hoarder@example.com'] });
    for (let n = 0; n < 100; n++) await mint({ subject: u, name: `k${n}` });
    expectError(await bapi('POST', '/v1/api_keys', { subject: u, name: 'one more' }), 409, 'CONFLICT', { reason: 'too_many_keys' });
  });
});

describe('lifecycle', () => {
  it('banning or deleting a user and deleting an organization revokes their keys in the same change', async () => {
    const banned = await createTestUser(h, i, { email_address: ['banned@example.com'] });
    const deleted = await createTestUser(h, i, { email_address: ['deleted@example.com'] });
    const org = (await bapi('POST', '/v1/organizations', { name: 'Doomed' })).body.id;
    const keys = { banned: await mint({ subject: banned }), deleted: await mint({ subject: deleted }), org: await mint({ subject: org }) };

    h.clock.advance(1);
    const since = h.clock.now();
    expect((await bapi('POST', `/v1/users/${banned}/ban`)).status).toBe(200);
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual(['apiKey.revoked', 'user.banned']);
    expect((await bapi('DELETE', `/v1/users/${deleted}`)).status).toBe(200);
    expect((await bapi('DELETE', `/v1/organizations/${org}`)).status).toBe(200);

    h.clock.advance(1000); // past this node's cache
    for (const [who, reason] of [
      ['banned', 'user_banned'],
      ['deleted', 'user_deleted'],
      ['org', 'organization_deleted'],
    ] as const) {
      expectError(await verify(keys[who].secret), 404, 'API_KEY_INVALID', { reason: 'revoked' });
      expect((await bapi('GET', `/v1/api_keys/${keys[who].id}`)).body).toMatchObject({ revoked: true, revocation_reason: reason });
      const log = await bapi('GET', `/v1/audit_logs?action=api_key.revoked&target=${keys[who].id}`);
      expect(log.body.data[0]).toMatchObject({ actor: 'system', details: { revocation_reason: reason } });
    }
    // The router still records the ban and the deletion themselves.
    expect((await bapi('GET', `/v1/audit_logs?action=user.banned&target=${banned}`)).body.data).toHaveLength(1);
    expect((await bapi('GET', `/v1/audit_logs?action=user.deleted&target=${deleted}`)).body.data).toHaveLength(1);

    // Unbanning does not bring the keys back.
    await bapi('POST', `/v1/users/${banned}/unban`);
    expectError(await verify(keys.banned.secret), 404, 'API_KEY_INVALID', { reason: 'revoked' });
  });
});
