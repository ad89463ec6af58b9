import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitlistEntries } from '../db/schema';
import { sha256Hex } from '../crypto/secrets';
import { browserOf, codeSentTo, eventsDuring, instanceWith, signUp, type TestInstance } from '../testing/auth-flows';
import { claimedConsole, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { expectError } from '../testing/expect';
import { bapiWith, createTestUser, setSettings } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

/** The waitlist: join on the FAPI, invite or reject on the BAPI and console, complete by signing up with the ticket. */
let h: TestHarness;
let W: TestInstance;
let bapi: ReturnType<typeof bapiWith>;

beforeAll(async () => {
  h = await createHarness({ env: { BAPI_RATE_LIMIT: '100000', TRUST_PROXY: '1' } });
  W = await instanceWith(h, { sign_up_mode: 'waitlist', password_required: false });
  bapi = bapiWith(h, W);
});
afterAll(() => h.close());

let ipCounter = 0;
/** Each call from its own address, so the per-IP sign-up budget does not get in the way. */
const freshIp = () => ({ 'x-forwarded-for': `198.51.100.${++ipCounter}` });
const join = (i: TestInstance, email_address: unknown, headers = freshIp()) =>
  browserOf(h, i).call('POST', '/v1/waitlist', { body: { email_address }, headers });
const entryOf = async (email: string) => (await bapi.ok('GET', `/v1/waitlist_entries?query=${encodeURIComponent(email)}`)).data[0];
/** The ticket of the newest invitation emailed to `to`, read from its link. */
async function ticketSentTo(to: string) {
  const mail = (await h.outbox(to)).find((m) => m.template === 'invitation');
  const url = new URL(String(mail!.data.url));
  return { url, ticket: new URLSearchParams(url.hash.slice(1)).get('ticket')! };
}

describe('the waitlist from join to completed sign-up', () => {
  it('joins (pending), is invited (email with a sign-up ticket), signs up with the ticket (completed); each step emits its event', async () => {
    const email = 'Grace.Hopper@example.com';
    const joined = await eventsDuring(h, W.instanceId, () => join(W, email));
    expect(joined.result.status, JSON.stringify(joined.result.body)).toBe(200);
    expect(joined.result.body).toEqual({ object: 'waitlist_entry', email_address: email, status: 'pending' });
    const entry = await entryOf('grace.hopper');
    expect(entry).toEqual({
      object: 'waitlist_entry',
      id: expect.stringMatching(/^wle_[0-9A-Z]{26}$/),
      email_address: email,
      status: 'pending',
      invited_at: null,
      invitation_expires_at: null,
      user_id: null,
      created_at: h.clock.now(),
      updated_at: h.clock.now(),
    });
    expect(joined.events).toEqual([{ type: 'waitlistEntry.created', data: entry }]);

    // Not invited yet: sign-up is closed to this address.
    const b = browserOf(h, W);
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'waitlist' },
    );

    const invited = await eventsDuring(h, W.instanceId, () => bapi.ok('POST', `/v1/waitlist_entries/${entry.id}/invite`, {}));
    expect(invited.result).toMatchObject({
      id: entry.id,
      status: 'invited',
      invited_at: h.clock.now(),
      invitation_expires_at: h.clock.now() + 30 * 86_400_000,
    });
    expect(invited.events.map((e) => e.type)).toEqual(['waitlistEntry.updated', 'email.created']);
    expect(invited.events[0]!.data).toEqual(invited.result);
    const { url, ticket } = await ticketSentTo(email);
    expect(url.origin + url.pathname).toBe(`http://localhost:3000/fapi/${W.instanceId}/sign-up`);
    expect(ticket).toMatch(/^tkt_[A-Za-z0-9_-]{43}$/);
    const [row] = await h.runtime.deps.db.select().from(waitlistEntries).where(eq(waitlistEntries.id, entry.id));
    expect(row!.ticketDigest).toBe(sha256Hex(ticket));
    expect(JSON.stringify(row)).not.toContain(ticket);

    // The ticket is this address's only, and a sign-up without it stays closed.
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: 'someone.else@example.com', ticket }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'waitlist' },
    );
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'waitlist' },
    );
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket: 'tkt_forged' }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'waitlist' },
    );

    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket }, headers: freshIp() });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.response.id;
    expect((await b.call('POST', `/v1/client/sign_ups/${id}/prepare_verification`, { body: { strategy: 'email_code' } })).status).toBe(200);
    const code = await codeSentTo(h, email);
    const done = await eventsDuring(h, W.instanceId, () =>
      b.call('POST', `/v1/client/sign_ups/${id}/attempt_verification`, { body: { code }, headers: freshIp() }),
    );
    expect(done.result.status, JSON.stringify(done.result.body)).toBe(200);
    const userId = done.result.body.response.created_user_id;
    expect(userId).toMatch(/^user_/);

    const completed = await bapi.ok('GET', `/v1/waitlist_entries/${entry.id}`);
    expect(completed).toMatchObject({ status: 'completed', user_id: userId });
    expect(done.events.map((e) => e.type)).toContain('waitlistEntry.updated');
    expect(done.events.find((e) => e.type === 'waitlistEntry.updated')!.data).toEqual(completed);

    // Done: the ticket does not sign anyone up again, and a completed entry is not invited or rejected.
    expectError(
      await browserOf(h, W).call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
    );
    expectError(await bapi.call('POST', `/v1/waitlist_entries/${entry.id}/invite`, {}), 409, 'CONFLICT', { reason: 'completed' });
    expectError(await bapi.call('POST', `/v1/waitlist_entries/${entry.id}/reject`, {}), 409, 'CONFLICT', { reason: 'completed' });
  });

  it('joining twice answers the same and creates nothing; the answer says nothing about other people', async () => {
    const first = await eventsDuring(h, W.instanceId, () => join(W, 'twice@example.com'));
    const again = await eventsDuring(h, W.instanceId, () => join(W, 'TWICE@example.com'));
    expect(first.events.map((e) => e.type)).toEqual(['waitlistEntry.created']);
    expect(again.events).toEqual([]);
    expect(again.result.body).toEqual({ object: 'waitlist_entry', email_address: 'TWICE@example.com', status: 'pending' });
    expect((await bapi.ok('GET', '/v1/waitlist_entries?query=twice%40')).data).toHaveLength(1);

    // An invited, a rejected and a signed-up address answer exactly as a new one does.
    const invited = (await bapi.ok('POST', '/v1/waitlist_entries', { email_address: 'invited.other@example.com' })).id;
    await bapi.ok('POST', `/v1/waitlist_entries/${invited}/invite`, {});
    const rejected = (await bapi.ok('POST', '/v1/waitlist_entries', { email_address: 'rejected.other@example.com' })).id;
    await bapi.ok('POST', `/v1/waitlist_entries/${rejected}/reject`, {});
    await createTestUser(h, W, { email_address: ['user.other@example.com'] });
    for (const email of ['invited.other@example.com', 'rejected.other@example.com', 'user.other@example.com', 'brand.new@example.com']) {
      const res = await join(W, email);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ object: 'waitlist_entry', email_address: email, status: 'pending' });
    }
    expect((await bapi.ok('GET', `/v1/waitlist_entries/${invited}`)).status).toBe('invited');
    expect((await bapi.ok('GET', `/v1/waitlist_entries/${rejected}`)).status).toBe('rejected');
    // A user's address is not put on the list.
    expect((await bapi.ok('GET', '/v1/waitlist_entries?query=user.other')).data).toEqual([]);
  });

  it('refuses bad input with 422, and answers 403 no_waitlist outside waitlist mode', async () => {
    expectError(await join(W, 'not-an-email'), 422, 'VALIDATION_FAILED', { param: 'email_address' });
    expectError(await join(W, undefined), 422, 'VALIDATION_FAILED', { param: 'email_address' });
    expectError(await join(W, `${'a'.repeat(400)}@example.com`), 422, 'VALIDATION_FAILED', { param: 'email_address' });
    const open = await instanceWith(h, { sign_up_mode: 'public' });
    expectError(await join(open, 'x@example.com'), 403, 'FORBIDDEN', { reason: 'no_waitlist' });
  });

  it('limits joining per IP like sign-up creation (5 / 10 s)', async () => {
    const I = await instanceWith(h, { sign_up_mode: 'waitlist' });
    const ip = { 'x-forwarded-for': '192.0.2.77' };
    for (let n = 0; n < 5; n++) expect((await join(I, `flood${n}@example.com`, ip)).status).toBe(200);
    const limited = await join(I, 'flood5@example.com', ip);
    expectError(limited, 429, 'RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });
});

describe('BAPI /v1/waitlist_entries', () => {
  it('adds an entry (422 on a bad address, 409 when listed), with its event', async () => {
    const added = await eventsDuring(h, W.instanceId, () =>
      bapi.ok('POST', '/v1/waitlist_entries', { email_address: 'added@example.com' }),
    );
    expect(added.result).toMatchObject({ object: 'waitlist_entry', email_address: 'added@example.com', status: 'pending' });
    expect(added.events).toEqual([{ type: 'waitlistEntry.created', data: added.result }]);
    expectError(await bapi.call('POST', '/v1/waitlist_entries', { email_address: 'ADDED@example.com' }), 409, 'CONFLICT', {
      reason: 'already_on_waitlist',
    });
    expectError(await bapi.call('POST', '/v1/waitlist_entries', { email_address: 'nope' }), 422, 'VALIDATION_FAILED', {
      param: 'email_address',
    });
    expectError(
      await bapi.call('POST', '/v1/waitlist_entries', { email_address: 'x@example.com', status: 'invited' }),
      422,
      'VALIDATION_FAILED',
      { reason: 'unknown_field' },
    );
  });

  it('rejects (ticket stops working, again: no change), re-invites with a new ticket (the old one stops working)', async () => {
    const email = 'maybe@example.com';
    const { id } = await bapi.ok('POST', '/v1/waitlist_entries', { email_address: email });
    await bapi.ok('POST', `/v1/waitlist_entries/${id}/invite`, { expires_in_days: 2 });
    const { ticket: first } = await ticketSentTo(email);
    const rejected = await eventsDuring(h, W.instanceId, () => bapi.ok('POST', `/v1/waitlist_entries/${id}/reject`, {}));
    expect(rejected.result).toMatchObject({ status: 'rejected', invitation_expires_at: null });
    expect(rejected.events).toEqual([{ type: 'waitlistEntry.updated', data: rejected.result }]);
    const b = browserOf(h, W);
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket: first }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'waitlist' },
    );
    const again = await eventsDuring(h, W.instanceId, () => bapi.ok('POST', `/v1/waitlist_entries/${id}/reject`, {}));
    expect(again.events).toEqual([]);

    h.clock.advance(1000);
    await bapi.ok('POST', `/v1/waitlist_entries/${id}/invite`, {});
    const { ticket: second } = await ticketSentTo(email);
    expect(second).not.toBe(first);
    await bapi.ok('POST', `/v1/waitlist_entries/${id}/invite`, { expires_in_days: 1 });
    const { ticket: third } = await ticketSentTo(email);
    expectError(
      await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket: second }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
    );
    expect(
      (await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket: third }, headers: freshIp() })).status,
    ).toBe(200);
    // Past its expiry the ticket signs nobody up.
    h.clock.advance(86_400_000 + 1);
    expectError(
      await browserOf(h, W).call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket: third }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
    );
    expectError(await bapi.call('POST', `/v1/waitlist_entries/${id}/invite`, { expires_in_days: 91 }), 422, 'VALIDATION_FAILED', {
      param: 'expires_in_days',
    });
  });

  it('a sign-up started with a ticket is refused at verification once the entry is rejected meanwhile', async () => {
    const email = 'changed.mind@example.com';
    const { id } = await bapi.ok('POST', '/v1/waitlist_entries', { email_address: email });
    await bapi.ok('POST', `/v1/waitlist_entries/${id}/invite`, {});
    const { ticket } = await ticketSentTo(email);
    const b = browserOf(h, W);
    const created = await b.call('POST', '/v1/client/sign_ups', { body: { email_address: email, ticket }, headers: freshIp() });
    expect(created.status).toBe(200);
    const attempt = created.body.response.id;
    await b.call('POST', `/v1/client/sign_ups/${attempt}/prepare_verification`, { body: { strategy: 'email_code' } });
    const code = await codeSentTo(h, email);
    await bapi.ok('POST', `/v1/waitlist_entries/${id}/reject`, {});
    expectError(
      await b.call('POST', `/v1/client/sign_ups/${attempt}/attempt_verification`, { body: { code }, headers: freshIp() }),
      403,
      'SIGN_UP_NOT_ALLOWED',
      { reason: 'waitlist' },
    );
    expect((await bapi.ok('GET', `/v1/users?email_address=${encodeURIComponent(email)}`)).data ?? []).toEqual([]);
  });

  it('completes an invited entry when its person signs up after the instance left waitlist mode', async () => {
    const I = await instanceWith(h, { sign_up_mode: 'waitlist', password_required: false });
    const ib = bapiWith(h, I);
    const email = 'late@example.com';
    const { id } = await ib.ok('POST', '/v1/waitlist_entries', { email_address: email });
    await ib.ok('POST', `/v1/waitlist_entries/${id}/invite`, {});
    await setSettings(h, I.instanceId, { sign_up_mode: 'public' });
    const { userId } = await signUp(h, browserOf(h, I), { email_address: email });
    expect(await ib.ok('GET', `/v1/waitlist_entries/${id}`)).toMatchObject({ status: 'completed', user_id: userId });
  });

  it('does not invite an address that already belongs to a user', async () => {
    const { id } = await bapi.ok('POST', '/v1/waitlist_entries', { email_address: 'already.user@example.com' });
    await createTestUser(h, W, { email_address: ['already.user@example.com'] });
    expectError(await bapi.call('POST', `/v1/waitlist_entries/${id}/invite`, {}), 409, 'CONFLICT', { reason: 'already_user' });
  });

  it('lists newest first with cursor pages, filtered by status and query', async () => {
    const L = await instanceWith(h, { sign_up_mode: 'waitlist' });
    const lb = bapiWith(h, L);
    const ids: string[] = [];
    for (const n of [1, 2, 3, 4, 5]) ids.push((await lb.ok('POST', '/v1/waitlist_entries', { email_address: `page${n}@list.example` })).id);
    await lb.ok('POST', `/v1/waitlist_entries/${ids[1]}/reject`, {});
    const p1 = await lb.ok('GET', '/v1/waitlist_entries?limit=2');
    expect(p1.data.map((e: { id: string }) => e.id)).toEqual([ids[4], ids[3]]);
    expect(p1).toMatchObject({ has_more: true, next_cursor: ids[3] });
    const p2 = await lb.ok('GET', `/v1/waitlist_entries?limit=2&starting_after=${p1.next_cursor}`);
    expect(p2.data.map((e: { id: string }) => e.id)).toEqual([ids[2], ids[1]]);
    const p3 = await lb.ok('GET', `/v1/waitlist_entries?limit=2&starting_after=${p2.next_cursor}`);
    expect(p3).toMatchObject({ has_more: false, next_cursor: null });
    expect(p3.data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);

    expect((await lb.ok('GET', '/v1/waitlist_entries?status=rejected')).data.map((e: { id: string }) => e.id)).toEqual([ids[1]]);
    expect((await lb.ok('GET', '/v1/waitlist_entries?status=pending')).data).toHaveLength(4);
    expect((await lb.ok('GET', '/v1/waitlist_entries?query=PAGE3')).data.map((e: { id: string }) => e.id)).toEqual([ids[2]]);
    expect((await lb.ok('GET', '/v1/waitlist_entries?query=%25')).data).toEqual([]);
    expect((await lb.ok('GET', `/v1/waitlist_entries?query=${ids[0]}`)).data.map((e: { id: string }) => e.id)).toEqual([ids[0]]);
    expectError(await lb.call('GET', '/v1/waitlist_entries?status=done'), 422, 'VALIDATION_FAILED', { param: 'status' });
  });

  it('needs waitlist:read to read and waitlist:write to change; another instance’s entry is 404', async () => {
    const { id } = await bapi.ok('POST', '/v1/waitlist_entries', { email_address: 'scoped@example.com' });
    const reader = (await h.createKey(W.instanceId, 'waitlist:read')).secret;
    const stranger = (await h.createKey(W.instanceId, 'users:write')).secret;
    expect((await bapi.call('GET', '/v1/waitlist_entries', undefined, reader)).status).toBe(200);
    expect((await bapi.call('GET', `/v1/waitlist_entries/${id}`, undefined, reader)).status).toBe(200);
    expectError(await bapi.call('POST', `/v1/waitlist_entries/${id}/invite`, {}, reader), 403, 'SCOPE_MISSING', {
      required_scope: 'waitlist:write',
    });
    expectError(await bapi.call('POST', `/v1/waitlist_entries/${id}/reject`, {}, reader), 403, 'SCOPE_MISSING', {
      required_scope: 'waitlist:write',
    });
    expectError(await bapi.call('POST', '/v1/waitlist_entries', { email_address: 'x@example.com' }, reader), 403, 'SCOPE_MISSING', {
      required_scope: 'waitlist:write',
    });
    expectError(await bapi.call('GET', '/v1/waitlist_entries', undefined, stranger), 403, 'SCOPE_MISSING', {
      required_scope: 'waitlist:read',
    });
    expect((await bapi.call('GET', '/v1/waitlist_entries', undefined, 'sk_test_nope')).status).toBe(401);

    const other = await instanceWith(h, { sign_up_mode: 'waitlist' });
    const ob = bapiWith(h, other);
    expectError(await ob.call('GET', `/v1/waitlist_entries/${id}`), 404, 'NOT_FOUND');
    expectError(await ob.call('POST', `/v1/waitlist_entries/${id}/invite`, {}), 404, 'NOT_FOUND');
    expectError(await ob.call('POST', `/v1/waitlist_entries/${id}/reject`, {}), 404, 'NOT_FOUND');
    expect((await ob.ok('GET', '/v1/waitlist_entries')).data).toEqual([]);
    expect((await bapi.ok('GET', `/v1/waitlist_entries/${id}`)).status).toBe('pending');
  });

  it('records invites and rejections in the audit log with the key as actor', async () => {
    const { id } = await bapi.ok('POST', '/v1/waitlist_entries', { email_address: 'audited@example.com' });
    await bapi.ok('POST', `/v1/waitlist_entries/${id}/invite`, {});
    const log = await bapi.ok('GET', `/v1/audit_logs?action=waitlist_entry.invited&target=${id}`);
    expect(log.data[0]).toMatchObject({ actor_kind: 'secret_key' });
    expect(JSON.stringify(log.data[0])).not.toContain('tkt_');
  });
});

describe('dashboard waitlist', () => {
  let owner: Awaited<ReturnType<typeof claimedConsole>>;
  let viewer: ConsoleBrowser;
  let base: string;
  let secretKey: string;

  beforeAll(async () => {
    owner = await claimedConsole(h);
    const instance = await owner.b.dash('POST', `/accounts/${owner.accountId}/instances`, {
      body: { name: 'Waitlisted', environment: 'test' },
    });
    const instancePath = `/accounts/${owner.accountId}/instances/${instance.body.id}`;
    base = `${instancePath}/waitlist_entries`;
    secretKey = (await owner.b.dash('POST', `${instancePath}/keys`, { body: { scopes: '*' } })).body.secret;
    await setSettings(h, instance.body.id, { sign_up_mode: 'waitlist' });
    viewer = await invitedViewer(h, owner);
  });

  it('an admin invites several entries at once (all or none); each gets its email; audit names the operator', async () => {
    const ids: string[] = [];
    for (const n of [1, 2, 3])
      ids.push((await h.call('POST', '/v1/waitlist_entries', { key: secretKey, body: { email_address: `bulk${n}@example.com` } })).body.id);
    const listed = await owner.b.dash('GET', `${base}?status=pending`);
    expect(listed.body.data).toHaveLength(3);

    const bulk = await owner.b.dash('POST', `${base}/invite`, { body: { ids: [ids[0], ids[2]] } });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
    expect(bulk.body).toMatchObject({ object: 'list', has_more: false });
    expect(bulk.body.data.map((e: { id: string; status: string }) => [e.id, e.status])).toEqual([
      [ids[0], 'invited'],
      [ids[2], 'invited'],
    ]);
    expect((await ticketSentTo('bulk1@example.com')).ticket).toMatch(/^tkt_/);
    expect((await ticketSentTo('bulk3@example.com')).ticket).toMatch(/^tkt_/);
    const log = await h.call('GET', `/v1/audit_logs?action=waitlist_entry.invited&target=${ids[0]}`, { key: secretKey });
    expect(log.body.data[0]).toMatchObject({ actor_kind: 'operator' });

    // One unknown id fails the lot: nothing changes.
    expectError(
      await owner.b.dash('POST', `${base}/invite`, { body: { ids: [ids[1], 'wle_01J0000000000000000000000Z'] } }),
      404,
      'NOT_FOUND',
    );
    expect((await owner.b.dash('GET', `${base}/${ids[1]}`)).body.status).toBe('pending');
    expectError(await owner.b.dash('POST', `${base}/invite`, { body: { ids: [] } }), 422, 'VALIDATION_FAILED', { param: 'ids' });
  });

  it('a viewer reads but cannot add, invite or reject', async () => {
    const { id } = (await h.call('POST', '/v1/waitlist_entries', { key: secretKey, body: { email_address: 'viewed@example.com' } })).body;
    expect((await viewer.dash('GET', base)).status).toBe(200);
    expect((await viewer.dash('GET', `${base}/${id}`)).body).toMatchObject({ id, status: 'pending' });
    expectError(await viewer.dash('POST', base, { body: { email_address: 'v@example.com' } }), 403, 'FORBIDDEN', {
      reason: 'role_required',
    });
    expectError(await viewer.dash('POST', `${base}/${id}/invite`, { body: {} }), 403, 'FORBIDDEN', { reason: 'role_required' });
    expectError(await viewer.dash('POST', `${base}/${id}/reject`, { body: {} }), 403, 'FORBIDDEN', { reason: 'role_required' });
    expectError(await viewer.dash('POST', `${base}/invite`, { body: { ids: [id] } }), 403, 'FORBIDDEN', { reason: 'role_required' });
  });
});
