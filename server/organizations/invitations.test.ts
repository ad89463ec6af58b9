import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { events, organizationInvitations } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { eventsSince, nextInstant } from '../testing/auth-flows';
import { bapiWith, createTestUser, setSettings } from '../testing/fapi-helpers';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
const other = sharedInstance(h);
beforeAll(async () => {
  await setSettings(h, i.instanceId, { redirect_urls: ['https://app.example.com/join'] });
});

let seq = 0;
const email = (tag = 'x') => `${tag}.${Date.now().toString(36)}.${++seq}@example.com`;
const { call: bapi, ok } = bapiWith(h, i);
const newOrg = () => ok('POST', '/v1/organizations', { name: `Org ${++seq}` });

describe('BAPI invitations', () => {
  it('creates an invitation with its email; the token is only in the email, and stored as a digest', async () => {
    const org = await newOrg();
    const to = email('ada');
    const since = nextInstant(h);
    const inv = await ok('POST', `/v1/organizations/${org.id}/invitations`, {
      email_address: to,
      redirect_url: 'https://app.example.com/join/acme',
      public_metadata: { source: 'crm' },
      private_metadata: { note: 'vip' },
    });
    expect(inv).toMatchObject({
      object: 'organization_invitation',
      status: 'pending',
      role: 'org:member',
      organization_id: org.id,
      public_organization_data: { id: org.id, name: org.name, slug: org.slug },
      redirect_url: 'https://app.example.com/join/acme',
      public_metadata: { source: 'crm' },
      private_metadata: { note: 'vip' },
      expires_at: h.clock.now() + 30 * 86_400_000,
    });
    const url = new URL(String((await h.outbox(to))[0]!.data.url));
    expect(url.origin + url.pathname).toBe('https://app.example.com/join/acme');
    const token = url.searchParams.get('invitation_token')!;
    expect(token).toMatch(/^oit_[A-Za-z0-9_-]{43}$/);
    expect(JSON.stringify(inv)).not.toContain(token);
    const evts = await h.runtime.deps.db.select().from(events).where(eq(events.instanceId, i.instanceId));
    expect(
      evts
        .filter((e) => e.type.startsWith('organization'))
        .map((e) => JSON.stringify(e.data))
        .join(),
    ).not.toContain(token);
    const [row] = await h.runtime.deps.db.select().from(organizationInvitations).where(eq(organizationInvitations.id, inv.id));
    expect(row!.tokenDigest).toBe(sha256Hex(token));
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual(['organizationInvitation.created', 'email.created']);

    // notify: false sends nothing.
    const quiet = email('quiet');
    await ok('POST', `/v1/organizations/${org.id}/invitations`, { email_address: quiet, notify: false });
    expect(await h.outbox(quiet)).toEqual([]);
  });

  it('refuses duplicates, members, unknown roles and redirect URLs outside the allowlist', async () => {
    const org = await newOrg();
    const to = email('dup');
    await ok('POST', `/v1/organizations/${org.id}/invitations`, { email_address: to });
    expectError(await bapi('POST', `/v1/organizations/${org.id}/invitations`, { email_address: to.toUpperCase() }), 409, 'CONFLICT', {
      reason: 'duplicate_invitation',
      param: 'email_address',
    });
    const memberEmail = email('member');
    const userId = await createTestUser(h, i, { email_address: memberEmail });
    await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id: userId });
    expectError(await bapi('POST', `/v1/organizations/${org.id}/invitations`, { email_address: memberEmail }), 409, 'CONFLICT', {
      reason: 'already_member',
      param: 'email_address',
    });
    expectError(
      await bapi('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email(), role: 'org:ghost' }),
      422,
      'VALIDATION_FAILED',
      { param: 'role' },
    );
    expectError(
      await bapi('POST', `/v1/organizations/${org.id}/invitations`, { email_address: email(), redirect_url: 'https://evil.example/x' }),
      422,
      'VALIDATION_FAILED',
      {
        reason: 'not_allowed',
      },
    );
    expectError(await bapi('POST', `/v1/organizations/${org.id}/invitations`, { email_address: 'nope' }), 422, 'VALIDATION_FAILED');
  });

  it('bulk-creates invitations all or none, and lists them in the light envelope', async () => {
    const org = await newOrg();
    const [a, b] = [email('a'), email('b')];
    const since = nextInstant(h);
    const bulk = await ok('POST', `/v1/organizations/${org.id}/invitations/bulk`, [
      { email_address: a },
      { email_address: b, role: 'org:admin' },
    ]);
    expect(bulk).toMatchObject({ object: 'list', has_more: false });
    expect(bulk.data.map((x: { email_address: string; role: string }) => [x.email_address, x.role])).toEqual([
      [a, 'org:member'],
      [b, 'org:admin'],
    ]);
    expect((await eventsSince(h, i.instanceId, since)).map((e) => e.type)).toEqual([
      'organizationInvitation.created',
      'email.created',
      'organizationInvitation.created',
      'email.created',
    ]);
    // One bad entry: nothing is created.
    const c = email('c');
    expectError(
      await bapi('POST', `/v1/organizations/${org.id}/invitations/bulk`, [{ email_address: c }, { email_address: a }]),
      409,
      'CONFLICT',
    );
    expect(await h.outbox(c)).toEqual([]);
    expectError(await bapi('POST', `/v1/organizations/${org.id}/invitations/bulk`, []), 422, 'VALIDATION_FAILED');

    const list = await ok('GET', `/v1/organizations/${org.id}/invitations`);
    expect(Object.keys(list).sort()).toEqual(['data', 'has_more', 'object']);
    expect(list.data).toHaveLength(2);
    await ok('POST', `/v1/organizations/${org.id}/invitations/${list.data[0].id}/revoke`);
    expect(
      (await ok('GET', `/v1/organizations/${org.id}/invitations?status=pending`)).data.map(
        (x: { email_address: string }) => x.email_address,
      ),
    ).toEqual([b]);
    expect((await ok('GET', `/v1/organizations/${org.id}/invitations?status=revoked`)).data).toHaveLength(1);
    expect((await ok('GET', `/v1/organizations/${org.id}/invitations?limit=1`)).has_more).toBe(true);
    expectError(await bapi('GET', `/v1/organizations/${org.id}/invitations/${list.data[0].id}`, undefined, other.secret), 404, 'NOT_FOUND');
    expectError(
      await bapi('POST', `/v1/organizations/${org.id}/invitations/${list.data[0].id}/revoke`, undefined, other.secret),
      404,
      'NOT_FOUND',
    );
  });
});
