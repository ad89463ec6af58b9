import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { eventsDuring } from '../testing/auth-flows';
import { bapiWith, createTestUser, setSettings } from '../testing/fapi-helpers';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
const other = sharedInstance(h);

let seq = 0;
const uniq = (tag: string) => `${tag}-${Date.now().toString(36)}-${++seq}`;
const newUser = (tag = 'u') => createTestUser(h, i, { email_address: `${uniq(tag)}@example.com`, first_name: tag });
const { call, ok } = bapiWith(h, i);
const eventsOf = <T>(fn: () => Promise<T>, instanceId = i.instanceId) => eventsDuring(h, instanceId, fn);

describe('organizations', () => {
  it('creates, gets by id or slug, updates and lists; each with its event', async () => {
    const creator = await newUser('creator');
    const { result: org, events } = await eventsOf(() =>
      ok('POST', '/v1/organizations', { name: 'Acme Corp', created_by: creator, public_metadata: { tier: 'gold' } }),
    );
    expect(org).toMatchObject({
      object: 'organization',
      id: expect.stringMatching(/^org_[0-9A-HJKMNP-TV-Z]{26}$/),
      name: 'Acme Corp',
      slug: 'acme-corp',
      members_count: 1,
      created_by: creator,
      public_metadata: { tier: 'gold' },
      private_metadata: {},
      max_allowed_memberships: 0,
      image_url: null,
    });
    expect(events.map((e) => e.type)).toEqual(['organization.created', 'organizationMembership.created']);
    expect(events[1]!.data).toMatchObject({ role: 'org:admin', public_user_data: { user_id: creator } });

    expect((await ok('GET', `/v1/organizations/${org.id}`)).id).toBe(org.id);
    expect((await ok('GET', '/v1/organizations/acme-corp')).id).toBe(org.id);

    // The same name again gets a slug with a suffix; an explicit taken slug is 422.
    const second = await ok('POST', '/v1/organizations', { name: 'Acme Corp' });
    expect(second.slug).toMatch(/^acme-corp-[a-z0-9]{6}$/);
    expectError(await call('POST', '/v1/organizations', { name: 'X', slug: 'acme-corp' }), 422, 'VALIDATION_FAILED', {
      param: 'slug',
      reason: 'taken',
    });

    const { result: updated, events: upd } = await eventsOf(() =>
      ok('PATCH', `/v1/organizations/${org.id}`, {
        name: 'Acme Inc',
        public_metadata: { tier: null, region: { eu: true } },
        private_metadata: { crm: 'c1' },
      }),
    );
    expect(updated).toMatchObject({ name: 'Acme Inc', public_metadata: { region: { eu: true } }, private_metadata: { crm: 'c1' } });
    expect(updated.public_metadata).not.toHaveProperty('tier');
    expect(upd.map((e) => e.type)).toEqual(['organization.updated']);
    const merged = await ok('PATCH', `/v1/organizations/${org.id}`, { public_metadata: { region: { us: false } } });
    expect(merged.public_metadata).toEqual({ region: { eu: true, us: false } });

    const listed = await ok('GET', '/v1/organizations?query=acme&limit=1');
    expect(listed).toMatchObject({ has_more: true, next_cursor: expect.any(String) });
    expect(listed.data).toHaveLength(1);
    const page2 = await ok('GET', `/v1/organizations?query=acme&limit=1&starting_after=${listed.next_cursor}`);
    expect(page2.data[0].id).not.toBe(listed.data[0].id);
    const byUser = await ok('GET', `/v1/organizations?user_id=${creator}`);
    expect(byUser.data.map((o: { id: string }) => o.id)).toEqual([org.id]);
  });

  it('validates input and answers 404 for another instance’s ids', async () => {
    expectError(await call('POST', '/v1/organizations', {}), 422, 'VALIDATION_FAILED');
    expectError(await call('POST', '/v1/organizations', { name: 'A', slug: 'Bad Slug!' }), 422, 'VALIDATION_FAILED');
    expectError(await call('POST', '/v1/organizations', { name: 'A', created_by: 'user_nope' }), 422, 'VALIDATION_FAILED', {
      param: 'created_by',
    });
    const org = await ok('POST', '/v1/organizations', { name: uniq('mine') });
    expectError(await call('GET', `/v1/organizations/${org.id}`, undefined, other.secret), 404, 'NOT_FOUND');
    expectError(await call('PATCH', `/v1/organizations/${org.id}`, { name: 'x' }, other.secret), 404, 'NOT_FOUND');
    expectError(await call('DELETE', `/v1/organizations/${org.id}`, undefined, other.secret), 404, 'NOT_FOUND');
    expectError(await call('GET', `/v1/organizations/${org.id}/memberships`, undefined, other.secret), 404, 'NOT_FOUND');
  });

  it('requires the organizations scopes', async () => {
    const reader = await h.createKey(i.instanceId, 'organizations:read');
    expect((await call('GET', '/v1/organizations', undefined, reader.secret)).status).toBe(200);
    expectError(await call('POST', '/v1/organizations', { name: 'x' }, reader.secret), 403, 'SCOPE_MISSING', {
      required_scope: 'organizations:write',
    });
    const users = await h.createKey(i.instanceId, 'users:write');
    expectError(await call('GET', '/v1/organizations', undefined, users.secret), 403, 'SCOPE_MISSING', {
      required_scope: 'organizations:read',
    });
    expectError(await call('GET', '/v1/roles', undefined, users.secret), 403, 'SCOPE_MISSING', { required_scope: 'roles:read' });
  });
});

describe('memberships', () => {
  it('adds, changes the role of, lists and removes members; each with its event', async () => {
    const org = await ok('POST', '/v1/organizations', { name: uniq('team') });
    const [a, b] = [await newUser('a'), await newUser('b')];
    const { result: added, events } = await eventsOf(() =>
      ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: a, role: 'org:admin' }),
    );
    expect(added).toMatchObject({
      object: 'organization_membership',
      id: expect.stringMatching(/^orgmem_/),
      role: 'org:admin',
      role_name: 'Admin',
      organization: { id: org.id, members_count: 1 },
      public_user_data: { user_id: a, first_name: 'a' },
    });
    expect(added.permissions).toContain('org:sys_memberships:manage');
    expect(events.map((e) => e.type)).toEqual(['organizationMembership.created']);

    // Without a role: the instance's default role.
    const plain = await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: b });
    expect(plain.role).toBe('org:member');
    expect(plain.permissions).toEqual(['org:sys_memberships:read']);
    expectError(await call('POST', `/v1/organizations/${org.id}/memberships`, { user_id: b }), 409, 'CONFLICT', {
      reason: 'already_member',
      param: 'user_id',
    });
    expectError(await call('POST', `/v1/organizations/${org.id}/memberships`, { user_id: a, role: 'org:nope' }), 422, 'VALIDATION_FAILED', {
      param: 'role',
    });
    expectError(await call('POST', `/v1/organizations/${org.id}/memberships`, { user_id: 'user_x' }), 422, 'VALIDATION_FAILED', {
      param: 'user_id',
    });

    const list = await ok('GET', `/v1/organizations/${org.id}/memberships`);
    expect(list).toMatchObject({ object: 'list', has_more: false });
    expect(Object.keys(list).sort()).toEqual(['data', 'has_more', 'object']);
    expect(list.data.map((m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id)).toEqual([a, b]);
    const limited = await ok('GET', `/v1/organizations/${org.id}/memberships?limit=1`);
    expect(limited).toMatchObject({ has_more: true });
    const admins = await ok('GET', `/v1/organizations/${org.id}/memberships?role=org:admin`);
    expect(admins.data).toHaveLength(1);

    const { result: promoted, events: upd } = await eventsOf(() =>
      ok('PATCH', `/v1/organizations/${org.id}/memberships/${b}`, { role: 'org:admin', public_metadata: { title: 'CTO' } }),
    );
    expect(promoted).toMatchObject({ role: 'org:admin', public_metadata: { title: 'CTO' } });
    expect(upd.map((e) => e.type)).toEqual(['organizationMembership.updated']);

    const perUser = await ok('GET', `/v1/users/${b}/organization_memberships`);
    expect(perUser).toMatchObject({ has_more: false, next_cursor: null });
    expect(perUser.data.map((m: { organization: { id: string } }) => m.organization.id)).toEqual([org.id]);

    const { result: removed, events: del } = await eventsOf(() => ok('DELETE', `/v1/organizations/${org.id}/memberships/${b}`));
    expect(removed).toMatchObject({ deleted: true, public_user_data: { user_id: b } });
    expect(del.map((e) => e.type)).toEqual(['organizationMembership.deleted']);
    const audited = await ok('GET', `/v1/audit_logs?target=${removed.id}`);
    expect(audited.data.map((x: { action: string }) => x.action).sort()).toEqual([
      'organization_membership.created',
      'organization_membership.deleted',
      'organization_membership.role_changed',
    ]);
    expectError(await call('DELETE', `/v1/organizations/${org.id}/memberships/${b}`), 404, 'NOT_FOUND');
    expect((await ok('GET', `/v1/organizations/${org.id}`)).members_count).toBe(1);
  });

  it('lists each organization with its members_count, as its own read does; include_members_count is accepted', async () => {
    const org = await ok('POST', '/v1/organizations', { name: uniq('counted') });
    for (const u of [await newUser('c1'), await newUser('c2')]) await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: u });
    const empty = await ok('POST', '/v1/organizations', { name: uniq('empty') });
    expect((await ok('GET', `/v1/organizations/${org.id}`)).members_count).toBe(2);
    const counts = (list: { data: { id: string; members_count: number }[] }) =>
      Object.fromEntries(list.data.map((o) => [o.id, o.members_count]));
    expect(counts(await ok('GET', '/v1/organizations?limit=100'))).toMatchObject({ [org.id]: 2, [empty.id]: 0 });
    expect(counts(await ok('GET', `/v1/organizations?query=${org.slug}&include_members_count=true`))).toEqual({ [org.id]: 2 });
    expectError(await call('GET', '/v1/organizations?include_members_count=yes'), 422, 'VALIDATION_FAILED', {
      param: 'include_members_count',
    });
  });

  it('keeps the last admin: it cannot be removed or demoted', async () => {
    const admin = await newUser('admin');
    const org = await ok('POST', '/v1/organizations', { name: uniq('solo'), created_by: admin });
    expectError(await call('DELETE', `/v1/organizations/${org.id}/memberships/${admin}`), 409, 'CONFLICT', { reason: 'last_admin' });
    expectError(await call('PATCH', `/v1/organizations/${org.id}/memberships/${admin}`, { role: 'org:member' }), 409, 'CONFLICT', {
      reason: 'last_admin',
    });
    // With a second admin, the first may go.
    const second = await newUser('second');
    await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: second, role: 'org:admin' });
    expect((await call('PATCH', `/v1/organizations/${org.id}/memberships/${admin}`, { role: 'org:member' })).status).toBe(200);
    expectError(await call('DELETE', `/v1/organizations/${org.id}/memberships/${second}`), 409, 'CONFLICT', { reason: 'last_admin' });
    expect((await call('DELETE', `/v1/organizations/${org.id}/memberships/${admin}`)).status).toBe(200);
  });

  it('enforces the membership cap, from the organization or the instance default', async () => {
    const org = await ok('POST', '/v1/organizations', { name: uniq('small'), max_allowed_memberships: 1 });
    await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: await newUser() });
    expectError(await call('POST', `/v1/organizations/${org.id}/memberships`, { user_id: await newUser() }), 403, 'FORBIDDEN', {
      reason: 'membership_limit',
    });
    // An invitation would need a seat too.
    expectError(
      await call('POST', `/v1/organizations/${org.id}/invitations`, { email_address: `${uniq('inv')}@example.com` }),
      403,
      'FORBIDDEN',
      { reason: 'membership_limit' },
    );
    await ok('PATCH', `/v1/organizations/${org.id}`, { max_allowed_memberships: 2 });
    expect((await call('POST', `/v1/organizations/${org.id}/memberships`, { user_id: await newUser() })).status).toBe(200);

    const inst = await h.createInstance();
    await setSettings(h, inst.instanceId, { organization_max_allowed_memberships: 3 });
    const res = await h.call('POST', '/v1/organizations', { key: inst.secret, body: { name: 'Capped' } });
    expect(res.body.max_allowed_memberships).toBe(3);
  });
});

describe('cascades', () => {
  it('deleting an organization removes its memberships and revokes its invitations, each with its event, in one transaction', async () => {
    const [a, b] = [await newUser('a'), await newUser('b')];
    const org = await ok('POST', '/v1/organizations', { name: uniq('doomed'), created_by: a });
    await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: b });
    const inv = await ok('POST', `/v1/organizations/${org.id}/invitations`, { email_address: `${uniq('x')}@example.com` });
    const dom = await ok('POST', `/v1/organizations/${org.id}/domains`, { name: `${uniq('d')}.example.org` });
    const { result, events } = await eventsOf(() => ok('DELETE', `/v1/organizations/${org.id}`));
    expect(result).toMatchObject({ object: 'organization', id: org.id, deleted: true });
    expect(events.map((e) => e.type)).toEqual([
      'organizationMembership.deleted',
      'organizationMembership.deleted',
      'organizationInvitation.revoked',
      'organizationDomain.deleted',
      'organization.deleted',
    ]);
    expect(events[2]!.data).toMatchObject({ id: inv.id, status: 'revoked' });
    expect(events[3]!.data).toMatchObject({ id: dom.id });
    expectError(await call('GET', `/v1/organizations/${org.id}`), 404, 'NOT_FOUND');
    expect((await ok('GET', `/v1/users/${a}/organization_memberships`)).data).toEqual([]);
    const audited = await ok('GET', `/v1/audit_logs?action=organization.deleted&target=${org.id}`);
    expect(audited.data).toEqual([
      expect.objectContaining({ action: 'organization.deleted', target: org.id, actor: expect.stringMatching(/key_/) }),
    ]);
  });

  it('deleting a user removes their memberships with events, even as the last admin', async () => {
    const u = await newUser('leaver');
    const org1 = await ok('POST', '/v1/organizations', { name: uniq('o1'), created_by: u });
    const org2 = await ok('POST', '/v1/organizations', { name: uniq('o2') });
    await ok('POST', `/v1/organizations/${org2.id}/memberships`, { user_id: u });
    const { events } = await eventsOf(() => ok('DELETE', `/v1/users/${u}`));
    expect(events.map((e) => e.type)).toEqual(['organizationMembership.deleted', 'organizationMembership.deleted', 'user.deleted']);
    expect((await ok('GET', `/v1/organizations/${org1.id}`)).members_count).toBe(0);
    expect((await ok('GET', `/v1/organizations/${org2.id}`)).members_count).toBe(0);
  });
});

describe('roles and permissions', () => {
  it('lists the built-in roles and system permissions', async () => {
    const roles = await ok('GET', '/v1/roles');
    expect(roles).toMatchObject({ object: 'list', has_more: false });
    const admin = roles.data.find((r: { key: string }) => r.key === 'org:admin');
    expect(admin).toMatchObject({ object: 'role', id: expect.stringMatching(/^role_/), is_system: true });
    expect(admin.permissions).toEqual([
      'org:sys_api_keys:manage',
      'org:sys_domains:manage',
      'org:sys_domains:read',
      'org:sys_memberships:manage',
      'org:sys_memberships:read',
      'org:sys_portal:manage',
      'org:sys_profile:delete',
      'org:sys_profile:manage',
    ]);
    expect(roles.data.find((r: { key: string }) => r.key === 'org:member').permissions).toEqual(['org:sys_memberships:read']);
    const perms = await ok('GET', '/v1/permissions');
    expect(perms.data.map((p: { key: string }) => p.key)).toContain('org:sys_profile:delete');
    expect(perms.data.every((p: { type: string; id: string }) => p.type === 'system' && p.id.startsWith('perm_'))).toBe(true);
  });

  it('creates, updates and deletes custom permissions and roles, each with its event', async () => {
    const { result: perm, events: e1 } = await eventsOf(() =>
      ok('POST', '/v1/permissions', { key: 'org:invoices:read', name: 'Read invoices' }),
    );
    expect(perm).toMatchObject({ object: 'permission', key: 'org:invoices:read', type: 'user' });
    expect(e1.map((e) => e.type)).toEqual(['permission.created']);
    expectError(await call('POST', '/v1/permissions', { key: 'org:invoices:read', name: 'again' }), 422, 'VALIDATION_FAILED', {
      reason: 'taken',
    });
    expectError(await call('POST', '/v1/permissions', { key: 'invoices', name: 'bad' }), 422, 'VALIDATION_FAILED');
    expectError(await call('POST', '/v1/permissions', { key: 'org:sys_x:read', name: 'reserved' }), 422, 'VALIDATION_FAILED', {
      reason: 'reserved',
    });

    const { events: e2 } = await eventsOf(() => ok('PATCH', `/v1/permissions/${perm.id}`, { name: 'See invoices' }));
    expect(e2.map((e) => e.type)).toEqual(['permission.updated']);

    const { result: role, events: e3 } = await eventsOf(() =>
      ok('POST', '/v1/roles', { key: 'org:billing', name: 'Billing', permissions: ['org:invoices:read', 'org:sys_memberships:read'] }),
    );
    expect(role).toMatchObject({
      object: 'role',
      key: 'org:billing',
      is_system: false,
      permissions: ['org:invoices:read', 'org:sys_memberships:read'],
    });
    expect(e3.map((e) => e.type)).toEqual(['role.created']);
    expectError(await call('POST', '/v1/roles', { key: 'org:x', name: 'X', permissions: ['org:nope:read'] }), 422, 'VALIDATION_FAILED', {
      reason: 'unknown_permission',
    });

    const { result: renamed, events: e4 } = await eventsOf(() => ok('PATCH', `/v1/roles/${role.id}`, { name: 'Finance' }));
    expect(renamed).toMatchObject({ name: 'Finance', key: 'org:billing' });
    expect(e4.map((e) => e.type)).toEqual(['role.updated']);

    // Deleting the permission takes it out of the role.
    const { events: e5 } = await eventsOf(() => ok('DELETE', `/v1/permissions/${perm.id}`));
    expect(e5.map((e) => e.type)).toEqual(['role.updated', 'permission.deleted']);
    expect((await ok('GET', `/v1/roles/${role.id}`)).permissions).toEqual(['org:sys_memberships:read']);

    // A role in use cannot be deleted; a free one can.
    const org = await ok('POST', '/v1/organizations', { name: uniq('r') });
    const u = await newUser();
    await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: u, role: 'org:billing' });
    expectError(await call('DELETE', `/v1/roles/${role.id}`), 409, 'CONFLICT', { reason: 'role_in_use' });
    await ok('DELETE', `/v1/organizations/${org.id}/memberships/${u}`);
    const { events: e6 } = await eventsOf(() => ok('DELETE', `/v1/roles/${role.id}`));
    expect(e6.map((e) => e.type)).toEqual(['role.deleted']);
    const audited = await ok('GET', `/v1/audit_logs?target=${role.id}`);
    expect(audited.data.map((a: { action: string }) => a.action).sort()).toEqual(['role.created', 'role.deleted', 'role.updated']);
    expectError(await call('GET', `/v1/roles/${role.id}`), 404, 'NOT_FOUND');
  });

  it('protects system roles and permissions', async () => {
    const roles = await ok('GET', '/v1/roles');
    const admin = roles.data.find((r: { key: string }) => r.key === 'org:admin');
    const member = roles.data.find((r: { key: string }) => r.key === 'org:member');
    expectError(await call('DELETE', `/v1/roles/${member.id}`), 403, 'FORBIDDEN', { reason: 'system_role' });
    expectError(await call('PATCH', `/v1/roles/${admin.id}`, { permissions: ['org:sys_memberships:read'] }), 422, 'VALIDATION_FAILED');
    const sys = (await ok('GET', '/v1/permissions')).data[0];
    expectError(await call('DELETE', `/v1/permissions/${sys.id}`), 403, 'FORBIDDEN', { reason: 'system_permission' });
    expectError(await call('GET', `/v1/roles/${admin.id}`, undefined, other.secret), 404, 'NOT_FOUND');
  });
});

describe('audit', () => {
  it('writes exactly one entry per change, naming the key, whether the domain or the router writes it', async () => {
    const u = await newUser('audited');
    const logs = async (): Promise<Record<string, unknown>[]> => (await ok('GET', '/v1/audit_logs?limit=100')).data;
    const seen = new Set((await logs()).map((e) => e.id));
    /** The entries `fn` wrote. */
    const entriesOf = async <T>(fn: () => Promise<T>) => {
      const result = await fn();
      const fresh = (await logs()).filter((e) => !seen.has(e.id));
      for (const e of fresh) seen.add(e.id);
      return { result, entries: fresh.map((e) => ({ action: e.action, actor: e.actor, actor_kind: e.actor_kind, target: e.target })) };
    };
    const by = { actor: `key:${i.keyId}`, actor_kind: 'secret_key' };

    const { result: org, entries: created } = await entriesOf(() => ok('POST', '/v1/organizations', { name: uniq('audited') }));
    expect(created).toEqual([{ action: 'organization.created', target: org.id, ...by }]);
    const path = `/v1/organizations/${org.id}`;
    expect((await entriesOf(() => ok('PATCH', path, { name: 'Renamed' }))).entries).toEqual([
      { action: 'organization.updated', target: org.id, ...by },
    ]);
    const { result: mem, entries: added } = await entriesOf(() => ok('POST', `${path}/memberships`, { user_id: u }));
    expect(added).toEqual([{ action: 'organization_membership.created', target: mem.id, ...by }]);
    expect((await entriesOf(() => ok('PATCH', `${path}/memberships/${u}`, { role: 'org:admin' }))).entries).toEqual([
      { action: 'organization_membership.role_changed', target: mem.id, ...by },
    ]);
    expect((await entriesOf(() => ok('PATCH', `${path}/memberships/${u}`, { public_metadata: { a: 1 } }))).entries).toEqual([
      { action: 'organization_membership.updated', target: mem.id, ...by },
    ]);
    const { result: inv, entries: invited } = await entriesOf(() =>
      ok('POST', `${path}/invitations`, { email_address: `${uniq('inv')}@example.com` }),
    );
    expect(invited).toEqual([{ action: 'organization_invitation.created', target: inv.id, ...by }]);
    const { result: dom, entries: domAdded } = await entriesOf(() => ok('POST', `${path}/domains`, { name: `${uniq('a')}.example.org` }));
    expect(domAdded).toEqual([{ action: 'organization_domain.created', target: dom.id, ...by }]);
    expect((await entriesOf(() => ok('DELETE', `${path}/domains/${dom.id}`))).entries).toEqual([
      { action: 'organization_domain.deleted', target: dom.id, ...by },
    ]);
    expect((await entriesOf(() => ok('DELETE', path))).entries).toEqual([{ action: 'organization.deleted', target: org.id, ...by }]);
    // A refused change writes nothing.
    expect((await entriesOf(() => call('DELETE', path))).entries).toEqual([]);
  });
});
