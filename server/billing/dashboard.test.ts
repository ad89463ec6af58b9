import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { createHarness, type TestHarness } from '../testing/harness';

/** The console's billing calls: the BAPI's under /v1/dashboard; viewers read, admins write; secrets never come back. */
let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let base: string;
let secretKey: string;

beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, { body: { name: 'Billing', environment: 'test' } });
  const instancePath = `/accounts/${owner.accountId}/instances/${instance.body.id}`;
  base = instancePath;
  secretKey = (await owner.b.dash('POST', `${instancePath}/keys`, { body: { scopes: '*' } })).body.secret;
  viewer = await invitedViewer(h, owner);
});
afterAll(() => h.close());

describe('dashboard billing', () => {
  it('an admin sets the processor and creates a plan; audit names the operator; secrets stay write-only', async () => {
    const set = await owner.b.dash('PATCH', `${base}/billing/settings`, {
      body: { secret_key: 'sk_test_console123', webhook_signing_secret: 'whsec_console' },
    });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body).toMatchObject({ secret_key_set: true, webhook_signing_secret_set: true });
    expect(JSON.stringify(set.body)).not.toContain('sk_test_console123');
    const plan = await owner.b.dash('POST', `${base}/billing/plans`, {
      body: { key: 'team', name: 'Team', payer: 'organization', features: ['sso'] },
    });
    expect(plan.status, JSON.stringify(plan.body)).toBe(200);
    expect((await h.call('GET', '/v1/billing/plans/team', { key: secretKey })).body).toEqual(plan.body);
    const log = await h.call('GET', `/v1/audit_logs?action=plan.created&target=${plan.body.id}`, { key: secretKey });
    expect(log.body.data[0]).toMatchObject({ actor_kind: 'operator' });
    expect((await owner.b.dash('GET', `${base}/subscriptions`)).body).toEqual({ data: [], has_more: false, next_cursor: null });
  });

  it('a viewer reads but cannot change settings or plans', async () => {
    expect((await viewer.dash('GET', `${base}/billing/plans`)).status).toBe(200);
    expect((await viewer.dash('GET', `${base}/billing/settings`)).body).toMatchObject({ object: 'billing_settings' });
    expectError(await viewer.dash('PATCH', `${base}/billing/settings`, { body: { secret_key: null } }), 403, 'FORBIDDEN', {
      reason: 'role_required',
    });
    expectError(await viewer.dash('POST', `${base}/billing/plans`, { body: { key: 'x', name: 'x', payer: 'user' } }), 403, 'FORBIDDEN', {
      reason: 'role_required',
    });
  });
});
