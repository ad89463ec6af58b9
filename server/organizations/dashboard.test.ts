import { beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, consoleBrowser, type ConsoleBrowser } from '../testing/console-client';
import { sharedHarness } from '../testing/harness';
import { expectError } from '../testing/expect';

const h = sharedHarness();
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let base: string;
let instanceId: string;
beforeAll(async () => {
  owner = await claimedConsole(h);
  const created = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Shop' } });
  instanceId = created.body.id;
  base = `/accounts/${owner.accountId}/instances/${instanceId}`;
  // A viewer of the same account.
  await owner.b.dash('POST', `/accounts/${owner.accountId}/invitations`, { body: { email_address: 'vic@example.com', role: 'viewer' } });
  const token = new URL(String((await h.outbox('vic@example.com'))[0]!.data.url)).searchParams.get('token')!;
  viewer = consoleBrowser(h, owner.platform);
  const accepted = await viewer.dash('POST', '/invitations/accept', { body: { token, password: 'viewer passphrase', first_name: 'Vic' } });
  if (accepted.status !== 200 && accepted.status !== 201) throw new Error(JSON.stringify(accepted.body));
});

describe('dashboard: organizations', () => {
  it('an admin manages organizations, members, invitations and domains; a viewer reads them', async () => {
    const org = await owner.b.dash('POST', `${base}/organizations`, { body: { name: 'Acme' } });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    const orgPath = `${base}/organizations/${org.body.id}`;
    const listed = await viewer.dash('GET', `${base}/organizations?query=acme`);
    expect(listed.body.data.map((o: { id: string }) => o.id)).toEqual([org.body.id]);
    expect((await viewer.dash('GET', orgPath)).body.slug).toBe('acme');

    // An unknown user cannot be added; an invitation; a domain verified by the operator.
    const added = await owner.b.dash('POST', `${orgPath}/memberships`, { body: { user_id: 'user_nobody' } });
    expectError(added, 422, 'VALIDATION_FAILED', { param: 'user_id' });
    const inv = await owner.b.dash('POST', `${orgPath}/invitations`, { body: { email_address: 'zed@acme.io', role: 'org:admin' } });
    expect(inv.status, JSON.stringify(inv.body)).toBe(200);
    const dom = await owner.b.dash('POST', `${orgPath}/domains`, {
      body: { name: 'acme.io', verified: true, enrollment_mode: 'automatic_invitation' },
    });
    expect(dom.body.verification).toMatchObject({ status: 'verified', strategy: 'admin' });

    expect((await viewer.dash('GET', `${orgPath}/memberships`)).body).toEqual({ object: 'list', data: [], has_more: false });
    expect((await viewer.dash('GET', `${orgPath}/invitations`)).body.data).toHaveLength(1);
    expect((await viewer.dash('GET', `${orgPath}/domains`)).body.data).toHaveLength(1);

    for (const [method, path, body] of [
      ['POST', `${base}/organizations`, { name: 'x' }],
      ['PATCH', orgPath, { name: 'y' }],
      ['DELETE', orgPath, undefined],
      ['POST', `${orgPath}/invitations`, { email_address: 'a@b.io' }],
      ['POST', `${orgPath}/invitations/${inv.body.id}/revoke`, undefined],
      ['POST', `${orgPath}/domains`, { name: 'b.io' }],
      ['POST', `${base}/roles`, { key: 'org:x', name: 'X' }],
    ] as const) {
      expectError(await viewer.dash(method, path, { body }), 403, 'FORBIDDEN');
    }

    expect((await owner.b.dash('POST', `${orgPath}/invitations/${inv.body.id}/revoke`)).body.status).toBe('revoked');
    expect(
      (await owner.b.dash('PATCH', `${orgPath}/domains/${dom.body.id}`, { body: { enrollment_mode: 'manual_invitation' } })).body
        .enrollment_mode,
    ).toBe('manual_invitation');
    const deleted = await owner.b.dash('DELETE', orgPath);
    expect(deleted.body).toMatchObject({ id: org.body.id, deleted: true });
    expectError(await owner.b.dash('GET', orgPath), 404, 'NOT_FOUND');
  });

  it('edits roles and permissions per instance', async () => {
    const perm = await owner.b.dash('POST', `${base}/permissions`, { body: { key: 'org:reports:read', name: 'Reports' } });
    expect(perm.status, JSON.stringify(perm.body)).toBe(200);
    const role = await owner.b.dash('POST', `${base}/roles`, {
      body: { key: 'org:analyst', name: 'Analyst', permissions: ['org:reports:read'] },
    });
    expect(role.body).toMatchObject({ key: 'org:analyst', permissions: ['org:reports:read'] });
    const roles = await viewer.dash('GET', `${base}/roles`);
    expect(roles.body.data.map((r: { key: string }) => r.key).sort()).toEqual(['org:admin', 'org:analyst', 'org:member']);
    const renamed = await owner.b.dash('PATCH', `${base}/roles/${role.body.id}`, { body: { name: 'Analysts', permissions: [] } });
    expect(renamed.body).toMatchObject({ name: 'Analysts', permissions: [] });
    expect((await owner.b.dash('PATCH', `${base}/permissions/${perm.body.id}`, { body: { name: 'See reports' } })).body.name).toBe(
      'See reports',
    );
    expect((await owner.b.dash('DELETE', `${base}/roles/${role.body.id}`)).body.deleted).toBe(true);
    expect((await owner.b.dash('DELETE', `${base}/permissions/${perm.body.id}`)).body.deleted).toBe(true);
    const audit = await owner.b.dash('GET', `${base}/audit_logs?target=${role.body.id}`);
    expect(audit.body.data.map((a: { action: string; actor: string }) => a.action).sort()).toEqual([
      'role.created',
      'role.deleted',
      'role.updated',
    ]);
    expect(audit.body.data[0].actor).toMatch(/^operator:user_/);
  });

  it('changes the organization settings through the settings PATCH; an unknown role is refused', async () => {
    const ok = await owner.b.dash('PATCH', `${base}/settings`, {
      body: { organization_default_role: 'org:admin', organization_max_allowed_memberships: 10 },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body).toMatchObject({ organization_default_role: 'org:admin', organization_max_allowed_memberships: 10 });
    expectError(
      await owner.b.dash('PATCH', `${base}/settings`, { body: { organization_creator_role: 'org:ghost' } }),
      422,
      'VALIDATION_FAILED',
      {
        param: 'organization_creator_role',
      },
    );
  });

  it('writes exactly one audit entry per change, naming the operator', async () => {
    const key = await h.createKey(instanceId, 'users:write');
    const user = await h.call('POST', '/v1/users', { key: key.secret, body: { email_address: 'audited@example.com' } });
    const logs = async (): Promise<Record<string, unknown>[]> => (await owner.b.dash('GET', `${base}/audit_logs?limit=100`)).body.data;
    const seen = new Set((await logs()).map((e) => e.id));
    /** The entries `fn` wrote. */
    const entriesOf = async <T>(fn: () => Promise<{ body: T }>) => {
      const { body } = await fn();
      const fresh = (await logs()).filter((e) => !seen.has(e.id));
      for (const e of fresh) seen.add(e.id);
      return { body, entries: fresh.map((e) => ({ action: e.action, actor: e.actor, actor_kind: e.actor_kind, target: e.target })) };
    };
    const by = { actor: `operator:${owner.operator.id}`, actor_kind: 'operator' };

    const { body: org, entries: created } = await entriesOf(() =>
      owner.b.dash('POST', `${base}/organizations`, { body: { name: 'Audited' } }),
    );
    expect(created).toEqual([{ action: 'organization.created', target: org.id, ...by }]);
    const orgPath = `${base}/organizations/${org.id}`;
    expect((await entriesOf(() => owner.b.dash('PATCH', orgPath, { body: { name: 'Renamed' } }))).entries).toEqual([
      { action: 'organization.updated', target: org.id, ...by },
    ]);
    const { body: mem, entries: added } = await entriesOf(() =>
      owner.b.dash('POST', `${orgPath}/memberships`, { body: { user_id: user.body.id } }),
    );
    expect(added).toEqual([{ action: 'organization_membership.created', target: mem.id, ...by }]);
    const { body: inv, entries: invited } = await entriesOf(() =>
      owner.b.dash('POST', `${orgPath}/invitations`, { body: { email_address: 'inv@audited.io' } }),
    );
    expect(invited).toEqual([{ action: 'organization_invitation.created', target: inv.id, ...by }]);
    const { body: dom, entries: domAdded } = await entriesOf(() =>
      owner.b.dash('POST', `${orgPath}/domains`, { body: { name: 'audited.io' } }),
    );
    expect(domAdded).toEqual([{ action: 'organization_domain.created', target: dom.id, ...by }]);
    expect((await entriesOf(() => owner.b.dash('DELETE', `${orgPath}/domains/${dom.id}`))).entries).toEqual([
      { action: 'organization_domain.deleted', target: dom.id, ...by },
    ]);
    expect((await entriesOf(() => owner.b.dash('DELETE', orgPath))).entries).toEqual([
      { action: 'organization.deleted', target: org.id, ...by },
    ]);
  });
});

describe('dashboard: checking a domain’s DNS now', () => {
  it('verifies the domain when its TXT record is published, says txt_record_not_found before; a viewer may not', async () => {
    const records = new Map<string, string[][]>();
    h.runtime.deps.txtResolver = {
      resolveTxt: async (name) => {
        const found = records.get(name);
        if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
        return found;
      },
    };
    const org = await owner.b.dash('POST', `${base}/organizations`, { body: { name: 'Dns Co' } });
    const orgPath = `${base}/organizations/${org.body.id}`;
    const dom = await owner.b.dash('POST', `${orgPath}/domains`, { body: { name: 'dnsco.example.com' } });
    expect(dom.body.verification.status).toBe('unverified');
    const check = `${orgPath}/domains/${dom.body.id}/attempt_verification`;
    expectError(await owner.b.dash('POST', check, { body: { strategy: 'dns_record' } }), 422, 'VALIDATION_FAILED', {
      reason: 'txt_record_not_found',
    });
    expectError(await viewer.dash('POST', check, { body: { strategy: 'dns_record' } }), 403, 'FORBIDDEN');
    records.set(dom.body.txt_record.name, [[dom.body.txt_record.value]]);
    const verified = await owner.b.dash('POST', check, { body: { strategy: 'dns_record' } });
    expect(verified.status, JSON.stringify(verified.body)).toBe(200);
    expect(verified.body.verification).toMatchObject({ status: 'verified', strategy: 'dns_record' });
  });
});
