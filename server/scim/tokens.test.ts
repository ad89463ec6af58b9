import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, events, scimTokens } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { claimedConsole } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { createHarness, type TestHarness } from '../testing/harness';
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, LIST_SCHEMA, USER_SCHEMA } from './discovery';

let h: TestHarness;
let key: string;
let instanceId: string;
let orgId: string;
beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000', SCIM_RATE_LIMIT: '5' } });
  ({ secret: key, instanceId } = await h.createInstance());
  orgId = (await h.call('POST', '/v1/organizations', { key, body: { name: 'Acme' } })).body.id;
});
afterAll(() => h.close());

const mint = (name = 'Okta') => h.call('POST', '/v1/scim_tokens', { key, body: { organization_id: orgId, name } });
const SCIM_ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error';

describe('SCIM tokens on the backend API', () => {
  it('mints a token shown once, stored as a digest, with scimToken.created carrying no secret', async () => {
    const res = await mint();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      object: 'scim_token',
      id: expect.stringMatching(/^scimtok_/),
      organization_id: orgId,
      name: 'Okta',
      token: expect.stringMatching(/^scim_[A-Za-z0-9_-]{40,}$/),
      created_at: expect.any(Number),
      last_used_at: null,
      revoked_at: null,
    });
    const [row] = await h.runtime.deps.db.select().from(scimTokens).where(eq(scimTokens.id, res.body.id));
    expect(row!.digest).toBe(sha256Hex(res.body.token));
    expect(JSON.stringify(row)).not.toContain(res.body.token);
    const [event] = await h.runtime.deps.db
      .select()
      .from(events)
      .where(and(eq(events.instanceId, instanceId), eq(events.type, 'scimToken.created')));
    expect(event!.data).toMatchObject({ id: res.body.id, object: 'scim_token' });
    expect(JSON.stringify(event!.data)).not.toContain(res.body.token);
    const [audit] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, instanceId), eq(auditLogs.action, 'scim_token.created')));
    expect(audit).toMatchObject({ target: res.body.id, actorKind: 'secret_key' });

    const listed = await h.call('GET', `/v1/scim_tokens?organization_id=${orgId}`, { key });
    expect(listed.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(listed.body.data.map((t: { id: string }) => t.id)).toContain(res.body.id);
    expect(JSON.stringify(listed.body)).not.toContain(res.body.token);
  });

  it('validates input and scopes', async () => {
    expectError(await h.call('POST', '/v1/scim_tokens', { key, body: { organization_id: orgId } }), 422, 'VALIDATION_FAILED', {
      param: 'name',
    });
    expectError(await h.call('POST', '/v1/scim_tokens', { key, body: { organization_id: 'org_nope', name: 'x' } }), 404, 'NOT_FOUND');
    const reader = await h.createKey(instanceId, 'scim_tokens:read');
    expectError(
      await h.call('POST', '/v1/scim_tokens', { key: reader.secret, body: { organization_id: orgId, name: 'x' } }),
      403,
      'SCOPE_MISSING',
      {
        required_scope: 'scim_tokens:write',
      },
    );
    expect((await h.call('GET', '/v1/scim_tokens', { key: reader.secret })).status).toBe(200);
    const other = await h.createInstance();
    expectError(await h.call('GET', `/v1/scim_tokens?organization_id=${orgId}`, { key: other.secret }), 404, 'NOT_FOUND');
  });

  it('401 in the SCIM error schema for a missing, unknown or revoked token', async () => {
    const { body: created } = await mint('Entra');
    const ok = await h.call('GET', '/scim/v2/Users', { key: created.token });
    expect(ok.status).toBe(200);
    expect(ok.body.schemas).toEqual([LIST_SCHEMA]);

    const revoked = await h.call('POST', `/v1/scim_tokens/${created.id}/revoke`, { key });
    expect(revoked.body).toMatchObject({ id: created.id, revoked_at: expect.any(Number) });
    const again = await h.call('POST', `/v1/scim_tokens/${created.id}/revoke`, { key });
    expect(again.body.revoked_at).toBe(revoked.body.revoked_at);
    const revokedEvents = await h.runtime.deps.db
      .select()
      .from(events)
      .where(and(eq(events.instanceId, instanceId), eq(events.type, 'scimToken.revoked')));
    expect(revokedEvents).toHaveLength(1);

    const attempts: Record<string, string>[] = [
      {},
      { authorization: `Bearer ${created.token}` },
      { authorization: 'Bearer scim_unknownunknownunknownunknown' },
      { authorization: `Bearer ${key}` },
    ];
    for (const headers of attempts) {
      const res = await h.call('GET', '/scim/v2/Users', { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('content-type')).toMatch(/^application\/scim\+json/);
      expect(res.body).toEqual({ schemas: [SCIM_ERROR], status: '401', detail: expect.any(String) });
    }
    expectError(await h.call('POST', '/v1/scim_tokens/scimtok_nope/revoke', { key }), 404, 'NOT_FOUND');
  });

  it('rate limits each token: 429 with Retry-After in the SCIM error schema', async () => {
    const { body: created } = await mint('Busy');
    const statuses: number[] = [];
    let last: Awaited<ReturnType<typeof h.call>> | undefined;
    for (let i = 0; i < 6; i++) {
      last = await h.call('GET', '/scim/v2/Groups', { key: created.token });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect(last!.body).toEqual({ schemas: [SCIM_ERROR], status: '429', detail: expect.any(String) });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // Another token of the same organization has its own budget.
    expect((await h.call('GET', '/scim/v2/Groups', { key: (await mint('Calm')).body.token })).status).toBe(200);
    h.clock.advance(10_000);
    expect((await h.call('GET', '/scim/v2/Groups', { key: created.token })).status).toBe(200);
  });
});

describe('discovery', () => {
  it('ServiceProviderConfig, ResourceTypes and Schemas describe what is supported', async () => {
    const spc = await h.call('GET', '/scim/v2/ServiceProviderConfig');
    expect(spc.status).toBe(200);
    expect(spc.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    expect(spc.body).toMatchObject({
      patch: { supported: true },
      bulk: { supported: false },
      filter: { supported: true, maxResults: 200 },
      changePassword: { supported: false },
      sort: { supported: false },
      etag: { supported: true },
      authenticationSchemes: [{ type: 'oauthbearertoken' }],
    });
    const types = await h.call('GET', '/scim/v2/ResourceTypes');
    expect(types.body.Resources.map((r: { id: string; endpoint: string }) => [r.id, r.endpoint])).toEqual([
      ['User', '/Users'],
      ['Group', '/Groups'],
    ]);
    expect((await h.call('GET', '/scim/v2/ResourceTypes/User')).body.schemaExtensions).toEqual([
      { schema: ENTERPRISE_SCHEMA, required: false },
    ]);
    const schemas = await h.call('GET', '/scim/v2/Schemas');
    expect(schemas.body.Resources.map((s: { id: string }) => s.id)).toEqual([USER_SCHEMA, ENTERPRISE_SCHEMA, GROUP_SCHEMA]);
    const user = await h.call('GET', `/scim/v2/Schemas/${USER_SCHEMA}`);
    expect(user.body.attributes.map((a: { name: string }) => a.name)).toEqual([
      'userName',
      'name',
      'displayName',
      'active',
      'emails',
      'phoneNumbers',
      'addresses',
      'title',
      'preferredLanguage',
    ]);
    expect((await h.call('GET', '/scim/v2/Schemas/urn:nope')).body).toMatchObject({ status: '404' });
    expect((await h.call('POST', '/scim/v2/ServiceProviderConfig')).body).toMatchObject({ status: '405' });
  });
});

describe('the console’s directory section (dashboard API)', () => {
  it('an admin mints (shown once) and revokes tokens, and reads users, groups and mappings', async () => {
    const owner = await claimedConsole(h);
    const instance = (await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Shop' } })).body.id;
    const base = `/accounts/${owner.accountId}/instances/${instance}`;
    const org = (await owner.b.dash('POST', `${base}/organizations`, { body: { name: 'Acme' } })).body.id;
    const orgPath = `${base}/organizations/${org}`;
    const created = await owner.b.dash('POST', `${orgPath}/scim_tokens`, { body: { name: 'Okta' } });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.token).toMatch(/^scim_/);
    const token = created.body.token as string;

    const user = await h.call('POST', '/scim/v2/Users', {
      key: token,
      raw: JSON.stringify({ schemas: [USER_SCHEMA], userName: 'dana@acme.io' }),
      headers: { 'content-type': 'application/scim+json' },
    });
    expect(user.status).toBe(201);
    const group = await h.call('POST', '/scim/v2/Groups', {
      key: token,
      body: { schemas: [GROUP_SCHEMA], displayName: 'Admins', members: [{ value: user.body.id }] },
    });
    expect(group.status).toBe(201);

    const tokens = await owner.b.dash('GET', `${orgPath}/scim_tokens`);
    expect(tokens.body.data).toEqual([expect.objectContaining({ id: created.body.id, last_used_at: expect.any(Number) })]);
    expect(tokens.body.data[0]).not.toHaveProperty('token');
    const users = await owner.b.dash('GET', `${orgPath}/scim_users`);
    expect(users.body.data).toEqual([
      expect.objectContaining({ user_id: user.body.id, user_name: 'dana@acme.io', active: true, created_by_directory: true }),
    ]);
    const groups = await owner.b.dash('GET', `${orgPath}/scim_groups`);
    expect(groups.body.data).toEqual([
      expect.objectContaining({ id: group.body.id, display_name: 'Admins', role: null, members_count: 1 }),
    ]);
    const mapped = await owner.b.dash('PATCH', `${orgPath}/scim_groups/${group.body.id}`, { body: { role: 'org:admin' } });
    expect(mapped.body.role).toBe('org:admin');
    const member = await owner.b.dash('GET', `${orgPath}/memberships`);
    expect(member.body.data[0].role).toBe('org:admin');

    // A failed request is counted and kept as the directory's last error (no body kept).
    expect((await owner.b.dash('GET', `${orgPath}/scim_status`)).body).toMatchObject({ errors_count: 0, last_error: null });
    const dup = await h.call('POST', '/scim/v2/Users', { key: token, body: { schemas: [USER_SCHEMA], userName: 'DANA@acme.io' } });
    expect(dup.status, JSON.stringify(dup.body)).toBe(409);
    const status = await owner.b.dash('GET', `${orgPath}/scim_status`);
    expect(status.status, JSON.stringify(status.body)).toBe(200);
    expect(status.body).toMatchObject({
      object: 'directory',
      users_count: 1,
      groups_count: 1,
      errors_count: 1,
      last_error: {
        at: h.clock.now(),
        method: 'POST',
        path: '/scim/v2/Users',
        status: 409,
        scim_type: 'uniqueness',
        detail: dup.body.detail,
      },
    });

    const revoked = await owner.b.dash('POST', `${orgPath}/scim_tokens/${created.body.id}/revoke`);
    expect(revoked.body.revoked_at).toEqual(expect.any(Number));
    expect((await h.call('GET', '/scim/v2/Users', { key: token })).status).toBe(401);
    // A request without a valid token names no directory: not counted.
    expect((await owner.b.dash('GET', `${orgPath}/scim_status`)).body.errors_count).toBe(1);
    // Another instance's organization is not this console's.
    expectError(await owner.b.dash('GET', `${base}/organizations/org_nope/scim_status`), 404, 'NOT_FOUND');
  });
});
