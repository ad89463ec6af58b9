import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventsSince, type TestInstance } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { fapiClient } from '../testing/fapi-client';
import { createTestUser, signedInClient } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

/** Self-service API keys on the FAPI: one's own, and an organization's for holders of org:sys_api_keys:manage. */
let h: TestHarness;
let i: TestInstance;
beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
  i = await h.createInstance();
});
afterAll(() => h.close());

let seq = 0;
const newUser = (tag: string) => createTestUser(h, i, { email_address: [`${tag}.${++seq}@example.com`] });
const bapi = (method: string, path: string, body?: unknown) => h.call(method, path, { key: i.secret, body });
const verify = (secret: string) => bapi('POST', '/v1/api_keys/verify', { secret });

describe('a signed-in user’s own keys', () => {
  it('lists, mints (secret once) and revokes them; the customer verifies them', async () => {
    const userId = await newUser('self');
    const { b, sessionId } = await signedInClient(h, i, userId);
    h.clock.advance(1);
    const since = h.clock.now();
    const created = await b.call('POST', '/v1/me/api_keys', { body: { name: 'Laptop', description: 'CLI', expires_in_seconds: 86400 } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({
      subject: userId,
      name: 'Laptop',
      description: 'CLI',
      scopes: [],
      claims: null,
      created_by: userId,
      secret: expect.stringMatching(/^ak_/),
    });
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual(['apiKey.created']);
    const log = await bapi('GET', `/v1/audit_logs?action=api_key.created&target=${created.body.id}`);
    expect(log.body.data[0]).toMatchObject({ actor: `session:${sessionId}`, actor_kind: 'user' });

    const list = await b.call('GET', '/v1/me/api_keys');
    expect(list.body).toEqual({ data: [{ ...created.body, secret: undefined }], has_more: false, next_cursor: null });
    expect(JSON.stringify(list.body)).not.toContain(created.body.secret);
    expect((await verify(created.body.secret)).body).toMatchObject({ id: created.body.id, subject: userId });

    const revoked = await b.call('POST', `/v1/me/api_keys/${created.body.id}/revoke`, { body: { revocation_reason: 'lost laptop' } });
    expect(revoked.body).toMatchObject({ revoked: true, revocation_reason: 'lost laptop' });
    expect((await b.call('GET', '/v1/me/api_keys')).body.data).toEqual([]);
    expectError(await verify(created.body.secret), 404, 'API_KEY_INVALID', { reason: 'revoked' });
  });

  it('lets users choose neither scopes nor claims, and bounds what they send', async () => {
    const { b } = await signedInClient(h, i, await newUser('bounded'));
    expectError(await b.call('POST', '/v1/me/api_keys', { body: { name: 'x', scopes: ['admin'] } }), 422, 'VALIDATION_FAILED', {
      param: 'scopes',
      reason: 'unknown_field',
    });
    expectError(await b.call('POST', '/v1/me/api_keys', { body: { name: 'x', claims: { role: 'admin' } } }), 422, 'VALIDATION_FAILED', {
      param: 'claims',
      reason: 'unknown_field',
    });
    expectError(await b.call('POST', '/v1/me/api_keys', { body: { name: 'x', subject: 'org_x' } }), 422, 'VALIDATION_FAILED', {
      param: 'subject',
      reason: 'unknown_field',
    });
    expectError(await b.call('POST', '/v1/me/api_keys', { body: {} }), 422, 'VALIDATION_FAILED', { param: 'name', reason: 'required' });
    expectError(await b.call('POST', '/v1/me/api_keys', { body: { name: 'x', expires_in_seconds: 10 } }), 422, 'VALIDATION_FAILED', {
      param: 'expires_in_seconds',
      reason: 'too_small',
    });
  });

  it('cannot see or revoke another user’s key; signed out, nothing', async () => {
    const owner = await newUser('owner');
    const key = (await bapi('POST', '/v1/api_keys', { subject: owner, name: 'Theirs' })).body;
    const { b } = await signedInClient(h, i, await newUser('intruder'));
    expect((await b.call('GET', '/v1/me/api_keys')).body.data).toEqual([]);
    expectError(await b.call('POST', `/v1/me/api_keys/${key.id}/revoke`, { body: {} }), 404, 'NOT_FOUND');
    expect((await verify(key.secret)).status).toBe(200);
    await b.call('DELETE', '/v1/client');
    expect((await b.call('GET', '/v1/me/api_keys')).status).toBe(401);
    expect((await b.call('POST', '/v1/me/api_keys', { body: { name: 'x' } })).status).toBe(401);
  });

  it('refuses personal access tokens and impersonation sessions', async () => {
    const userId = await newUser('pat');
    const { b } = await signedInClient(h, i, userId);
    const pat = (await b.call('POST', '/v1/client/me/api_tokens', { body: { name: 't', scopes: ['me:write'] } })).body.token as string;
    const byToken = await h.call('POST', `/fapi/${i.instanceId}/v1/me/api_keys`, { key: pat, body: { name: 'x' } });
    expectError(byToken, 403, 'FORBIDDEN', { reason: 'personal_access_token' });

    const ticket = (await bapi('POST', '/v1/actor_tokens', { user_id: userId, actor: { sub: 'support' } })).body.token as string;
    const impersonator = fapiClient(h, i.instanceId, { publishableKey: i.publishableKey });
    expect((await impersonator.signInWithTicket(ticket)).status).toBe(200);
    expectError(await impersonator.call('POST', '/v1/me/api_keys', { body: { name: 'x' } }), 403, 'FORBIDDEN', { reason: 'impersonation' });
  });
});

describe('an organization’s keys', () => {
  async function team() {
    const adminId = await newUser('admin');
    const memberId = await newUser('member');
    const org = (await bapi('POST', '/v1/organizations', { name: `Team ${++seq}`, created_by: adminId })).body;
    await bapi('POST', `/v1/organizations/${org.id}/memberships`, { user_id: memberId });
    return { org, adminId, memberId, admin: (await signedInClient(h, i, adminId)).b, member: (await signedInClient(h, i, memberId)).b };
  }

  it('admins (org:sys_api_keys:manage) list, mint and revoke them', async () => {
    const { org, adminId, admin } = await team();
    const created = await admin.call('POST', `/v1/organizations/${org.id}/api_keys`, { body: { name: 'Build server' } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body).toMatchObject({ subject: org.id, created_by: adminId, secret: expect.stringMatching(/^ak_/) });
    expect((await admin.call('GET', `/v1/organizations/${org.slug}/api_keys`)).body.data.map((k: { id: string }) => k.id)).toEqual([
      created.body.id,
    ]);
    expect((await verify(created.body.secret)).body.subject).toBe(org.id);
    const revoked = await admin.call('POST', `/v1/organizations/${org.id}/api_keys/${created.body.id}/revoke`, { body: {} });
    expect(revoked.body.revoked).toBe(true);
    expectError(await verify(created.body.secret), 404, 'API_KEY_INVALID', { reason: 'revoked' });
  });

  it('plain members get 403; another organization’s key or a user’s key is 404 through this organization', async () => {
    const a = await team();
    const b = await team();
    expectError(await a.member.call('GET', `/v1/organizations/${a.org.id}/api_keys`), 403, 'FORBIDDEN', { reason: 'missing_permission' });
    expectError(await a.member.call('POST', `/v1/organizations/${a.org.id}/api_keys`, { body: { name: 'x' } }), 403, 'FORBIDDEN', {
      reason: 'missing_permission',
    });
    const bKey = (await b.admin.call('POST', `/v1/organizations/${b.org.id}/api_keys`, { body: { name: 'B' } })).body;
    const userKey = (await bapi('POST', '/v1/api_keys', { subject: a.adminId, name: 'personal' })).body;
    expectError(await a.admin.call('POST', `/v1/organizations/${a.org.id}/api_keys/${bKey.id}/revoke`, { body: {} }), 404, 'NOT_FOUND');
    expectError(await a.admin.call('POST', `/v1/organizations/${a.org.id}/api_keys/${userKey.id}/revoke`, { body: {} }), 404, 'NOT_FOUND');
    // Not a member of b at all.
    expect((await a.admin.call('GET', `/v1/organizations/${b.org.id}/api_keys`)).status).toBe(404);
    expect((await verify(bKey.secret)).status).toBe(200);
  });

  it('a custom role granted org:sys_api_keys:manage may manage them; the admin role holds it built in', async () => {
    const { org, memberId, member } = await team();
    const roles = await bapi('GET', '/v1/roles');
    expect(roles.body.data.find((r: { key: string }) => r.key === 'org:admin').permissions).toContain('org:sys_api_keys:manage');
    await bapi('POST', '/v1/roles', { key: `org:keys${seq}`, name: 'Key keeper', permissions: ['org:sys_api_keys:manage'] });
    await bapi('PATCH', `/v1/organizations/${org.id}/memberships/${memberId}`, { role: `org:keys${seq}` });
    expect((await member.call('POST', `/v1/organizations/${org.id}/api_keys`, { body: { name: 'ok' } })).status).toBe(200);
  });
});
