import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { auditLogs, organizationInvitations } from '../db/schema';
import { expectError } from '../testing/expect';
import { bapiWith, createTestUser, signedInClient } from '../testing/fapi-helpers';
import { sharedHarness, type TestHarness, type TestInstance } from '../testing/harness';

/**
 * Organization invitations sent by end users (FAPI) spend a sending budget per sender and per
 * organization, as code sends do; past it 429 RATE_LIMITED and nothing is created or mailed.
 * The app's own server (BAPI) is not counted.
 */
const h = sharedHarness();

let seq = 0;
const address = (tag: string) => `${tag}.${++seq}@example.com`;

async function setUp(h: TestHarness) {
  const i = await h.createInstance();
  const bapi = bapiWith(h, i);
  const member = async (tag: string) => {
    const id = await createTestUser(h, i, { email_address: [address(tag)] });
    return { id, b: (await signedInClient(h, i, id)).b };
  };
  const organization = async (adminId: string) =>
    bapi.ok('POST', '/v1/organizations', { name: `Org ${++seq}`, created_by: adminId }) as Promise<{ id: string }>;
  return { i, bapi, member, organization };
}

const invite = (b: Awaited<ReturnType<Awaited<ReturnType<typeof setUp>>['member']>>['b'], orgId: string, email: string) =>
  b.call('POST', `/v1/organizations/${orgId}/invitations`, { body: { email_address: email } });

const invitationsTo = async (i: TestInstance, email: string) =>
  h.runtime.deps.db
    .select()
    .from(organizationInvitations)
    .where(and(eq(organizationInvitations.instanceId, i.instanceId), eq(organizationInvitations.emailKey, email)));

describe('organization invitation budgets', () => {
  it('a user sends at most 20 invitations an hour over all their organizations; the 21st is 429 and creates nothing', async () => {
    const { i, member, organization } = await setUp(h);
    const sender = await member('sender');
    const first = await organization(sender.id);
    const second = await organization(sender.id);
    for (let n = 0; n < 20; n++) {
      const res = await invite(sender.b, n % 2 ? first.id : second.id, address('target'));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
    }
    const refused = address('one-too-many');
    const res = await invite(sender.b, first.id, refused);
    const error = expectError(res, 429, 'RATE_LIMITED');
    expect(error.meta.retry_after).toEqual(expect.any(Number));
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await invitationsTo(i, refused)).toEqual([]);
    expect(await h.outbox(refused)).toEqual([]);
    // Another organization does not reset it: the budget is the sender's.
    const third = await organization(sender.id);
    expectError(await invite(sender.b, third.id, refused), 429, 'RATE_LIMITED');

    // Audited like every budget, under the sender's session.
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.instanceId, i.instanceId), eq(auditLogs.action, 'rate_limit.exceeded')));
    expect(entry).toMatchObject({
      actor: expect.stringMatching(/^session:sess_/),
      details: { surface: 'fapi', budget: 'invitations_per_user', limit: 20, window_seconds: 3600 },
    });

    // Another member of the same organization has their own budget.
    const colleague = await member('colleague');
    await h.call('POST', `/v1/organizations/${first.id}/memberships`, {
      key: i.secret,
      body: { user_id: colleague.id, role: 'org:admin' },
    });
    expect((await invite(colleague.b, first.id, address('target'))).status).toBe(200);

    // An hour later the sender may send again.
    h.clock.advance(3_600_000);
    expect((await invite(sender.b, first.id, refused)).status).toBe(200);
    expect(await h.outbox(refused)).toHaveLength(1);
  });

  it('an organization’s members share its budget (tightened by the policy), which the BAPI does not spend', async () => {
    const { i, bapi, member, organization } = await setUp(h);
    const policy = await bapi.ok('PATCH', '/v1/rate_limit_policy', { invitations_per_organization: 3 });
    expect(policy.budgets.invitations_per_organization).toMatchObject({
      limit: 3,
      default: 100,
      window_seconds: 86_400,
      per: 'organization',
    });
    expect(policy.budgets.invitations_per_user).toMatchObject({ limit: 20, default: 20, window_seconds: 3600, per: 'user' });
    expectError(await bapi.call('PATCH', '/v1/rate_limit_policy', { invitations_per_user: 21 }), 422, 'VALIDATION_FAILED', {
      param: 'invitations_per_user',
      reason: 'too_big',
    });

    const alice = await member('alice');
    const bob = await member('bob');
    const org = await organization(alice.id);
    await bapi.ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: bob.id, role: 'org:admin' });
    expect((await invite(alice.b, org.id, address('a'))).status).toBe(200);
    expect((await invite(alice.b, org.id, address('a'))).status).toBe(200);
    expect((await invite(bob.b, org.id, address('b'))).status).toBe(200);
    const refused = address('b');
    expectError(await invite(bob.b, org.id, refused), 429, 'RATE_LIMITED');
    expect(await invitationsTo(i, refused)).toEqual([]);
    // Bob's own budget is whole: another organization of his takes his invitations.
    const bobs = await organization(bob.id);
    expect((await invite(bob.b, bobs.id, refused)).status).toBe(200);

    // The app's server invites for the organization whatever its members spent, one by one or in bulk.
    expect((await bapi.call('POST', `/v1/organizations/${org.id}/invitations`, { email_address: address('server') })).status).toBe(200);
    const bulk = await bapi.call('POST', `/v1/organizations/${org.id}/invitations/bulk`, [
      { email_address: address('bulk') },
      { email_address: address('bulk') },
    ]);
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
  });

  it('a member without the permission is refused before spending anything', async () => {
    const { bapi, member, organization } = await setUp(h);
    await bapi.ok('PATCH', '/v1/rate_limit_policy', { invitations_per_user: 1 });
    const admin = await member('admin');
    const plain = await member('plain');
    const org = await organization(admin.id);
    await bapi.ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: plain.id });
    for (let n = 0; n < 3; n++) expectError(await invite(plain.b, org.id, address('x')), 403, 'FORBIDDEN');
    const own = await organization(plain.id);
    expect((await invite(plain.b, own.id, address('x'))).status).toBe(200);
    expectError(await invite(plain.b, own.id, address('x')), 429, 'RATE_LIMITED');
  });
});
