import { createClerkClient } from '@clerk/backend';
import { describe, expect, it } from 'vitest';
import { getInstance } from '../../../instances/instances';
import { instanceSettings } from '../../../instances/settings';
import { setSettings } from '../../../testing/fapi-helpers';
import { sharedApiServer } from '../../../testing/api-server';
import { sharedInstance } from '../../../testing/harness';

/**
 * `@clerk/backend`'s `instance.*` calls, the SDK unchanged with its default options, against the
 * API on a real socket (./instance-settings.ts): each maps onto Latchkey's settings.
 */
const api = sharedApiServer({ env: { BAPI_RATE_LIMIT: '100000' } });
const h = api.h;
const inst = sharedInstance(h);
const clerk = (secretKey = inst.secret) => createClerkClient({ secretKey, apiUrl: api.apiUrl, apiVersion: 'v1' });
/** What Latchkey stored, read fresh from the instance row. */
const settings = async () => instanceSettings((await getInstance(h.runtime.deps, inst.instanceId)).settings);
const audited = async () =>
  (await h.call('GET', '/v1/audit_logs?action=instance.settings_updated&limit=100', { key: inst.secret })).body.data as {
    actor: string;
    details: { changes: Record<string, unknown> };
  }[];

async function sdkError(p: Promise<unknown>) {
  const err = await p.then(
    () => null,
    (e: unknown) => e as { status: number; errors: { code: string; message?: string; meta?: { paramName?: string } }[] },
  );
  expect(err, 'the call should have failed').not.toBeNull();
  return { status: err!.status, code: err!.errors[0]!.code, param: err!.errors[0]!.meta?.paramName, message: err!.errors[0]!.message };
}

describe('@clerk/backend: instance', () => {
  it('get and update: allowed origins, the breached-password check and the support address, audited', async () => {
    const c = clerk();
    const before = await c.instance.get();
    expect(before).toMatchObject({ id: inst.instanceId, environmentType: 'development', allowedOrigins: [] });
    await expect(
      c.instance.update({
        allowedOrigins: ['https://app.example.com', 'http://localhost:5173'],
        hibp: false,
        supportEmail: 'help@example.com',
        testMode: false,
      }),
    ).resolves.toBeUndefined();
    expect((await c.instance.get()).allowedOrigins).toEqual(['https://app.example.com', 'http://localhost:5173']);
    const s = await settings();
    expect([s.allowed_origins, s.attack_protection.breached_passwords.enabled, s.branding.support_email]).toEqual([
      ['https://app.example.com', 'http://localhost:5173'],
      false,
      'help@example.com',
    ]);
    // The lockout settings beside the breach check are kept; Latchkey's own read says the same.
    expect(s.attack_protection.user_lockout.enabled).toBe(true);
    expect((await h.call('GET', '/v1/instance', { key: inst.secret })).body).toMatchObject({
      hibp: false,
      support_email: 'help@example.com',
      test_mode: false,
    });
    const [entry] = await audited();
    expect(entry).toMatchObject({
      actor: `key:${inst.keyId}`,
      details: { changes: { allowed_origins: ['https://app.example.com', 'http://localhost:5173'] } },
    });

    await c.instance.update({ hibp: true, supportEmail: null });
    expect([(await settings()).attack_protection.breached_passwords.enabled, (await settings()).branding.support_email]).toEqual([
      true,
      null,
    ]);
  });

  it('refuses what Latchkey cannot do or store, naming the field, and changes nothing', async () => {
    const c = clerk();
    const before = await settings();
    expect(await sdkError(c.instance.update({ testMode: true }))).toMatchObject({
      status: 422,
      code: 'VALIDATION_FAILED',
      param: 'test_mode',
      message: expect.stringContaining('no test mode'),
    });
    expect(await sdkError(c.instance.update({ enhancedEmailDeliverability: true }))).toMatchObject({
      status: 422,
      param: 'enhanced_email_deliverability',
    });
    expect(await sdkError(c.instance.update({ allowedOrigins: ['https://app.example.com/path'] }))).toMatchObject({
      status: 422,
      code: 'VALIDATION_FAILED',
    });
    expect(await sdkError(c.instance.update({ supportEmail: 'not an address' }))).toMatchObject({ status: 422, param: 'support_email' });
    expect(await sdkError(c.instance.update({ developmentOrigin: 'http://localhost:3000' }))).toMatchObject({
      status: 422,
      param: 'development_origin',
    });
    expect(await settings()).toEqual(before);
  });

  it('updateRestrictions: the allowlist is restricted sign-up; the blocks Latchkey lacks are refused', async () => {
    const c = clerk();
    const on = await c.instance.updateRestrictions({ allowlist: true });
    expect(on).toEqual({
      allowlist: true,
      blocklist: false,
      blockEmailSubaddresses: false,
      blockDisposableEmailDomains: false,
      ignoreDotsForGmailAddresses: false,
    });
    expect((await settings()).sign_up_mode).toBe('restricted');
    expect((await c.instance.updateRestrictions({ allowlist: false, blocklist: false })).allowlist).toBe(false);
    expect((await settings()).sign_up_mode).toBe('public');
    for (const [field, param] of [
      [{ blocklist: true }, 'blocklist'],
      [{ blockEmailSubaddresses: true }, 'block_email_subaddresses'],
      [{ blockDisposableEmailDomains: true }, 'block_disposable_email_domains'],
      [{ ignoreDotsForGmailAddresses: true }, 'ignore_dots_for_gmail_addresses'],
    ] as const) {
      expect(await sdkError(c.instance.updateRestrictions(field))).toMatchObject({ status: 422, param });
    }
    // The waitlist is not the allowlist: turning the allowlist off leaves it on.
    await setSettings(h, inst.instanceId, { sign_up_mode: 'waitlist' });
    expect((await c.instance.updateRestrictions({ allowlist: false })).allowlist).toBe(false);
    expect((await settings()).sign_up_mode).toBe('waitlist');
    await setSettings(h, inst.instanceId, { sign_up_mode: 'public' });
  });

  it('organization settings: get and update, roles by id or key', async () => {
    const c = clerk();
    expect(await c.instance.getOrganizationSettings()).toMatchObject({
      enabled: true,
      maxAllowedMemberships: 0,
      creatorRole: 'org:admin',
      domainsDefaultRole: 'org:member',
      adminDeleteEnabled: true,
      domainsEnabled: true,
      slugDisabled: false,
      domainsEnrollmentModes: ['manual_invitation', 'automatic_invitation', 'automatic_suggestion'],
    });
    const viewer = (await h.call('POST', '/v1/roles', { key: inst.secret, body: { key: 'org:viewer', name: 'Viewer' } })).body as {
      id: string;
    };
    const updated = await c.instance.updateOrganizationSettings({
      maxAllowedMemberships: 5,
      domainsDefaultRoleId: viewer.id,
      creatorRoleId: 'org:admin',
      enabled: false,
    });
    expect(updated).toMatchObject({ enabled: false, maxAllowedMemberships: 5, domainsDefaultRole: 'org:viewer', creatorRole: 'org:admin' });
    const s = await settings();
    expect([s.organizations_enabled, s.organization_max_allowed_memberships, s.organization_default_role]).toEqual([
      false,
      5,
      'org:viewer',
    ]);
    expect(await c.instance.getOrganizationSettings()).toMatchObject({ enabled: false, maxAllowedMemberships: 5 });
    // New organizations take the cap.
    expect((await c.organizations.createOrganization({ name: 'Capped' })).maxAllowedMemberships).toBe(5);

    expect(await sdkError(c.instance.updateOrganizationSettings({ creatorRoleId: 'role_01J0000000000000000000000' }))).toMatchObject({
      status: 422,
      param: 'creator_role_id',
    });
    expect(await sdkError(c.instance.updateOrganizationSettings({ domainsDefaultRoleId: 'org:nobody' }))).toMatchObject({
      status: 422,
      param: 'domains_default_role_id',
    });
    expect(await sdkError(c.instance.updateOrganizationSettings({ adminDeleteEnabled: false }))).toMatchObject({
      status: 422,
      param: 'admin_delete_enabled',
    });
    expect(await sdkError(c.instance.updateOrganizationSettings({ domainsEnabled: false }))).toMatchObject({
      status: 422,
      param: 'domains_enabled',
    });
    expect(await sdkError(c.instance.updateOrganizationSettings({ domainsEnrollmentModes: ['automatic_invitation'] }))).toMatchObject({
      status: 422,
      param: 'domains_enrollment_modes',
    });
    expect(await sdkError(c.instance.updateOrganizationSettings({ maxAllowedMemberships: -1 }))).toMatchObject({
      status: 422,
      param: 'max_allowed_memberships',
    });
    await c.instance.updateOrganizationSettings({ enabled: true, maxAllowedMemberships: 0, domainsDefaultRoleId: 'org:member' });
    expect((await settings()).organization_default_role).toBe('org:member');
  });

  it('needs the instance scopes', async () => {
    const reader = await h.createKey(inst.instanceId, 'instance:read');
    expect((await clerk(reader.secret).instance.get()).id).toBe(inst.instanceId);
    expect(await sdkError(clerk(reader.secret).instance.update({ hibp: true }))).toMatchObject({ status: 403, code: 'SCOPE_MISSING' });
    const users = await h.createKey(inst.instanceId, 'users:write');
    expect(await sdkError(clerk(users.secret).instance.getOrganizationSettings())).toMatchObject({ status: 403, code: 'SCOPE_MISSING' });
  });
});
