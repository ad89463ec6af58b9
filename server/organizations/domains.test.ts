import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { expectError } from '../testing/expect';
import { browserOf, codeSentTo, eventsDuring, eventsSince, nextInstant, signUp } from '../testing/auth-flows';
import { bapiWith, createTestUser, signedInClient } from '../testing/fapi-helpers';

const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
/** The fake DNS: TXT records by name. */
const txt = new Map<string, string[][]>();
beforeAll(async () => {
  h.runtime.deps.txtResolver = {
    resolveTxt: async (name) => {
      const found = txt.get(name);
      if (!found) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: 'ENOTFOUND' });
      return found;
    },
  };
});

let seq = 0;
const uniqDomain = () => `d${Date.now().toString(36)}${++seq}.example.com`;
const { call: bapi, ok } = bapiWith(h, i);
const eventTypes = <T>(fn: () => Promise<T>) => eventsDuring(h, i.instanceId, fn);
const newOrg = () => ok('POST', '/v1/organizations', { name: `Org ${++seq}` });

describe('organization domains', () => {
  it('adds, updates and removes a domain, each with its event; refuses public email domains', async () => {
    const org = await newOrg();
    const name = uniqDomain();
    const { result: dom, events } = await eventTypes(() => ok('POST', `/v1/organizations/${org.id}/domains`, { name: name.toUpperCase() }));
    expect(dom).toMatchObject({
      object: 'organization_domain',
      id: expect.stringMatching(/^orgdmn_/),
      name,
      enrollment_mode: 'manual_invitation',
      verification: { status: 'unverified', strategy: null },
      txt_record: {
        type: 'TXT',
        name: `_latchkey-verification.${name}`,
        value: expect.stringMatching(/^latchkey-verification=[0-9a-f]{32}$/),
      },
    });
    expect(events.map((e) => e.type)).toEqual(['organizationDomain.created']);
    expectError(await bapi('POST', `/v1/organizations/${org.id}/domains`, { name }), 409, 'CONFLICT', {
      reason: 'duplicate_domain',
      param: 'name',
    });
    for (const pub of ['gmail.com', 'Outlook.com', 'proton.me']) {
      expectError(await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: pub }), 422, 'VALIDATION_FAILED', {
        reason: 'public_email_domain',
      });
    }
    expectError(await bapi('POST', `/v1/organizations/${org.id}/domains`, { name: 'not a domain' }), 422, 'VALIDATION_FAILED');

    const listed = await ok('GET', `/v1/organizations/${org.id}/domains`);
    expect(listed).toMatchObject({ object: 'list', has_more: false });
    expect(listed.data.map((d: { id: string }) => d.id)).toEqual([dom.id]);

    const { result: upd, events: e2 } = await eventTypes(() =>
      ok('PATCH', `/v1/organizations/${org.id}/domains/${dom.id}`, { enrollment_mode: 'automatic_suggestion' }),
    );
    expect(upd.enrollment_mode).toBe('automatic_suggestion');
    expect(e2.map((e) => e.type)).toEqual(['organizationDomain.updated']);

    const { events: e3 } = await eventTypes(() => ok('DELETE', `/v1/organizations/${org.id}/domains/${dom.id}`));
    expect(e3.map((e) => e.type)).toEqual(['organizationDomain.deleted']);
    expectError(await bapi('GET', `/v1/organizations/${org.id}/domains/${dom.id}`), 404, 'NOT_FOUND');
  });

  it('verifies by an email code sent to an address at the domain', async () => {
    const org = await newOrg();
    const name = uniqDomain();
    const dom = await ok('POST', `/v1/organizations/${org.id}/domains`, { name });
    const base = `/v1/organizations/${org.id}/domains/${dom.id}`;
    expectError(
      await bapi('POST', `${base}/prepare_verification`, { strategy: 'email_code', affiliation_email_address: 'it@elsewhere.com' }),
      422,
      'VALIDATION_FAILED',
      {
        reason: 'wrong_domain',
      },
    );
    const address = `it@${name}`;
    const prepared = await ok('POST', `${base}/prepare_verification`, { strategy: 'email_code', affiliation_email_address: address });
    expect(prepared.affiliation_email_address).toBe(address);
    const code = await codeSentTo(h, address);
    expectError(
      await bapi('POST', `${base}/attempt_verification`, { strategy: 'email_code', code: code === '000000' ? '111111' : '000000' }),
      422,
      'CODE_INCORRECT',
    );
    const { result: verified, events } = await eventTypes(() =>
      ok('POST', `${base}/attempt_verification`, { strategy: 'email_code', code }),
    );
    expect(verified.verification).toMatchObject({ status: 'verified', strategy: 'email_code', verified_at: expect.any(Number) });
    expect(events.map((e) => e.type)).toEqual(['organizationDomain.updated']);
  });

  it('verifies by a DNS TXT record through the resolver; another organization cannot verify it again', async () => {
    const org = await newOrg();
    const name = uniqDomain();
    const dom = await ok('POST', `/v1/organizations/${org.id}/domains`, { name });
    const base = `/v1/organizations/${org.id}/domains/${dom.id}`;
    expect((await ok('POST', `${base}/prepare_verification`, { strategy: 'dns_record' })).txt_record.value).toBe(dom.txt_record.value);
    const failed = await bapi('POST', `${base}/attempt_verification`, { strategy: 'dns_record' });
    expectError(failed, 422, 'VALIDATION_FAILED', { reason: 'txt_record_not_found' });
    // The failed check is kept: when, and why.
    const checkedAt = h.clock.now();
    expect((await ok('GET', base)).verification).toMatchObject({
      status: 'unverified',
      last_checked_at: checkedAt,
      error: failed.body.errors[0].message,
    });
    // Long values come in chunks.
    txt.set(dom.txt_record.name, [['v=spf1 -all'], [dom.txt_record.value.slice(0, 10), dom.txt_record.value.slice(10)]]);
    const verified = await ok('POST', `${base}/attempt_verification`, { strategy: 'dns_record' });
    expect(verified.verification).toMatchObject({ status: 'verified', strategy: 'dns_record', error: null });
    expect(verified.verification.last_checked_at).toBeGreaterThanOrEqual(checkedAt);

    const rival = await newOrg();
    const rivalDom = await ok('POST', `/v1/organizations/${rival.id}/domains`, { name });
    expectError(await bapi('PATCH', `/v1/organizations/${rival.id}/domains/${rivalDom.id}`, { verified: true }), 409, 'CONFLICT', {
      reason: 'domain_taken',
    });
    const third = await newOrg();
    expectError(await bapi('POST', `/v1/organizations/${third.id}/domains`, { name, verified: true }), 409, 'CONFLICT', {
      reason: 'domain_taken',
    });
  });
});

describe('domain enrollment of new users', () => {
  async function verifiedDomain(mode: string) {
    const org = await newOrg();
    const name = uniqDomain();
    await ok('POST', `/v1/organizations/${org.id}/domains`, { name, enrollment_mode: mode, verified: true });
    return { org, name };
  }

  it('automatic_invitation: a new user is invited with the default role, and accepts on the FAPI', async () => {
    const { org, name } = await verifiedDomain('automatic_invitation');
    const { result: userId, events } = await eventTypes(() => createTestUser(h, i, { email_address: `ann@${name}` }));
    expect(events.map((e) => e.type)).toEqual(['user.created', 'organizationInvitation.created']);
    expect(events[1]!.data).toMatchObject({ email_address: `ann@${name}`, role: 'org:member', organization_id: org.id, status: 'pending' });
    const { b } = await signedInClient(h, i, userId);
    const invs = (await b.call('GET', '/v1/me/organization_invitations')).body.data;
    expect(invs).toHaveLength(1);
    const acc = await b.call('POST', `/v1/me/organization_invitations/${invs[0].id}/accept`);
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(acc.body.membership).toMatchObject({ role: 'org:member', organization: { id: org.id } });
  });

  it('automatic_suggestion: a user signing up is offered the organization, and joins by accepting', async () => {
    const { org, name } = await verifiedDomain('automatic_suggestion');
    const b = browserOf(h, i);
    const since = nextInstant(h);
    const { userId } = await signUp(h, b, { email_address: `bob@${name}`, password: 'a long enough passphrase' });
    const types = (await eventsSince(h, i.instanceId, since)).map((e) => e.type);
    expect(types).not.toContain('organizationInvitation.created');
    const sugg = (await b.call('GET', '/v1/me/organization_suggestions')).body;
    expect(sugg).toMatchObject({ object: 'list', has_more: false });
    expect(sugg.data).toEqual([
      expect.objectContaining({
        object: 'organization_suggestion',
        status: 'pending',
        public_organization_data: expect.objectContaining({ id: org.id }),
      }),
    ]);
    // Accepting asks the organization's admins: a membership request, no membership yet.
    const { result: acc, events } = await eventTypes(() => b.call('POST', `/v1/me/organization_suggestions/${sugg.data[0].id}/accept`));
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    expect(acc.body).toMatchObject({ object: 'organization_suggestion', id: sugg.data[0].id, status: 'accepted' });
    expect(events).toEqual([]);
    const requests = await ok('GET', `/v1/organizations/${org.id}/membership_requests`);
    expect(requests.data).toEqual([
      expect.objectContaining({
        object: 'organization_membership_request',
        organization_id: org.id,
        status: 'pending',
        public_user_data: expect.objectContaining({ user_id: userId }),
      }),
    ]);
    const { result: letIn, events: joined } = await eventTypes(() =>
      ok('POST', `/v1/organizations/${org.id}/membership_requests/${requests.data[0].id}/accept`),
    );
    expect(letIn).toMatchObject({ id: requests.data[0].id, status: 'accepted' });
    expect(joined.map((e) => e.type)).toEqual(['organizationMembership.created']);
    expect((await b.call('GET', '/v1/me/organization_memberships')).body.data).toEqual([
      expect.objectContaining({ organization: expect.objectContaining({ id: org.id }) }),
    ]);
    expectError(
      await h.call('POST', `/v1/organizations/${org.id}/membership_requests/${requests.data[0].id}/reject`, { key: i.secret }),
      409,
      'CONFLICT',
    );
    expect((await ok('GET', `/v1/organizations/${org.id}/membership_requests`)).data).toEqual([]);
    expect((await ok('GET', `/v1/organizations/${org.id}/membership_requests?status=accepted`)).data).toEqual([
      expect.objectContaining({ id: requests.data[0].id, status: 'accepted' }),
    ]);
    // Another organization's path never reaches the request.
    const other = await newOrg();
    expectError(
      await h.call('POST', `/v1/organizations/${other.id}/membership_requests/${requests.data[0].id}/accept`, { key: i.secret }),
      404,
      'NOT_FOUND',
    );
    // `revoked` is Clerk's name for rejected (none here); an unknown status is refused.
    expect((await ok('GET', `/v1/organizations/${org.id}/membership_requests?status=revoked`)).data).toEqual([]);
    expectError(
      await h.call('GET', `/v1/organizations/${org.id}/membership_requests?status=gone`, { key: i.secret }),
      422,
      'VALIDATION_FAILED',
    );
    expect((await b.call('GET', '/v1/me/organization_suggestions')).body.data).toEqual([]);
    // The accepted suggestion is listed when asked for by its status (alone, or with pending).
    for (const q of ['status=accepted', 'status=pending,accepted', 'status=pending&status=accepted']) {
      expect((await b.call('GET', `/v1/me/organization_suggestions?${q}`)).body.data).toEqual([
        expect.objectContaining({ id: sugg.data[0].id, status: 'accepted' }),
      ]);
    }
    expectError(await b.call('GET', '/v1/me/organization_suggestions?status=rejected'), 422, 'VALIDATION_FAILED');
    expectError(await b.call('POST', `/v1/me/organization_suggestions/${sugg.data[0].id}/accept`), 409, 'CONFLICT');
  });

  it('manual_invitation and unverified domains do nothing', async () => {
    const { name } = await verifiedDomain('manual_invitation');
    const org = await newOrg();
    const unverified = uniqDomain();
    await ok('POST', `/v1/organizations/${org.id}/domains`, { name: unverified, enrollment_mode: 'automatic_invitation' });
    for (const email of [`cy@${name}`, `di@${unverified}`]) {
      const { result: userId, events } = await eventTypes(() => createTestUser(h, i, { email_address: email }));
      expect(events.map((e) => e.type)).toEqual(['user.created']);
      const { b } = await signedInClient(h, i, userId);
      expect((await b.call('GET', '/v1/me/organization_invitations')).body.data).toEqual([]);
      expect((await b.call('GET', '/v1/me/organization_suggestions')).body.data).toEqual([]);
    }
  });
});

describe('FAPI domain management', () => {
  it('an admin adds and verifies a domain by email code', async () => {
    const adminId = await createTestUser(h, i, { email_address: `admin${++seq}@example.com` });
    const org = await ok('POST', '/v1/organizations', { name: `F ${seq}`, created_by: adminId });
    const { b } = await signedInClient(h, i, adminId);
    const name = uniqDomain();
    // Members cannot mark a domain verified themselves.
    expectError(await b.call('POST', `/v1/organizations/${org.id}/domains`, { body: { name, verified: true } }), 422, 'VALIDATION_FAILED');
    const added = await b.call('POST', `/v1/organizations/${org.id}/domains`, { body: { name } });
    expect(added.status, JSON.stringify(added.body)).toBe(200);
    const base = `/v1/organizations/${org.id}/domains/${added.body.id}`;
    expect(
      (await b.call('POST', `${base}/prepare_verification`, { body: { strategy: 'email_code', affiliation_email_address: `me@${name}` } }))
        .status,
    ).toBe(200);
    const verified = await b.call('POST', `${base}/attempt_verification`, {
      body: { strategy: 'email_code', code: await codeSentTo(h, `me@${name}`) },
    });
    expect(verified.body.verification.status).toBe('verified');
    expect((await b.call('GET', `/v1/organizations/${org.id}/domains`)).body.data).toHaveLength(1);
    const moded = await b.call('PATCH', base, { body: { enrollment_mode: 'automatic_suggestion' } });
    expect(moded.body.enrollment_mode).toBe('automatic_suggestion');
    expectError(await b.call('PATCH', base, { body: { verified: false } }), 422, 'VALIDATION_FAILED');
    const { events } = await eventTypes(() => b.call('DELETE', base));
    expect(events.map((e) => e.type)).toEqual(['organizationDomain.deleted']);
    expect((await b.call('GET', `/v1/organizations/${org.id}/domains`)).body.data).toEqual([]);
  });
});
