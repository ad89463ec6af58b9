import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemContext } from '../http/actor';
import { enrollTotp } from '../testing/auth-flows';
import { claimedConsole, consoleInstance, invitedViewer, type ConsoleBrowser } from '../testing/console-client';
import { fapiClient } from '../testing/fapi-client';
import { createHarness, type TestHarness } from '../testing/harness';
import { createApiToken } from './api-tokens';

/** The console's user page: what an operator changes of one user through the dashboard API. */
let h: TestHarness;
let owner: Awaited<ReturnType<typeof claimedConsole>>;
let viewer: ConsoleBrowser;
let inst: Awaited<ReturnType<typeof consoleInstance>>;
let publishableKey: string;
let n = 0;

beforeAll(async () => {
  h = await createHarness();
  owner = await claimedConsole(h);
  inst = await consoleInstance(owner, 'People');
  publishableKey = (await owner.b.dash('GET', inst.base)).body.publishable_key;
  viewer = await invitedViewer(h, owner);
});
afterAll(() => h.close());

const PASSWORD = 'a long passphrase 1';
async function newUser(body: Record<string, unknown> = {}) {
  const email = `member${++n}@example.com`;
  const res = await owner.b.dash('POST', `${inst.base}/users`, { body: { email_address: [email], password: PASSWORD, ...body } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.id as string, email, path: `${inst.base}/users/${res.body.id}` };
}
const audited = async (action: string, target: string) =>
  (await owner.b.dash('GET', `${inst.base}/audit_logs?action=${action}&target=${target}`)).body.data as Array<{ actor: string }>;
const signIn = (identifier: string, password: string) =>
  fapiClient(h, inst.id, { publishableKey }).call('POST', '/v1/client/sign_ins', { body: { identifier, password } });

describe('dashboard: a user’s email addresses and phone numbers', () => {
  it('adds unverified or verified, verifies on the operator’s word, sets primary and removes; each audited', async () => {
    const u = await newUser();
    const added = await owner.b.dash('POST', `${u.path}/email_addresses`, { body: { email_address: 'second@example.com' } });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body).toMatchObject({
      object: 'email_address',
      email_address: 'second@example.com',
      verification: { status: 'unverified' },
    });

    // Only a verified address may become primary.
    const early = await owner.b.dash('PATCH', u.path, { body: { primary_email_address_id: added.body.id } });
    expect(early.status).toBe(422);
    expect(early.body.errors[0].meta).toMatchObject({ param: 'primary_email_address_id', reason: 'unverified' });

    const verified = await owner.b.dash('POST', `${u.path}/email_addresses/${added.body.id}/verify`);
    expect(verified.status).toBe(200);
    expect(verified.body.verification).toEqual({ status: 'verified', strategy: 'admin' });
    expect((await owner.b.dash('POST', `${u.path}/email_addresses/${added.body.id}/verify`)).status).toBe(200);

    const primary = await owner.b.dash('PATCH', u.path, { body: { primary_email_address_id: added.body.id } });
    expect(primary.status).toBe(200);
    expect(primary.body.primary_email_address_id).toBe(added.body.id);

    // The primary one stays; the former primary goes.
    const refused = await owner.b.dash('DELETE', `${u.path}/email_addresses/${added.body.id}`);
    expect(refused.status).toBe(409);
    expect(refused.body.errors[0].meta.reason).toBe('primary_identifier');
    const first = primary.body.email_addresses.find((e: { id: string }) => e.id !== added.body.id).id;
    const removed = await owner.b.dash('DELETE', `${u.path}/email_addresses/${first}`);
    expect(removed.body).toEqual({ object: 'email_address', id: first, deleted: true });
    expect((await owner.b.dash('GET', u.path)).body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual([
      'second@example.com',
    ]);

    for (const action of ['user.email_address_added', 'user.email_address_verified', 'user.email_address_removed']) {
      expect((await audited(action, u.id))[0]?.actor, action).toBe(`operator:${owner.operator.id}`);
    }
  });

  it('a phone number added verified to a user without one becomes primary; taken and malformed ones are 422', async () => {
    const u = await newUser();
    const phone = await owner.b.dash('POST', `${u.path}/phone_numbers`, { body: { phone_number: '+14155550123', verified: true } });
    expect(phone.status).toBe(201);
    expect(phone.body.verification).toEqual({ status: 'verified', strategy: 'admin' });
    expect((await owner.b.dash('GET', u.path)).body.primary_phone_number_id).toBe(phone.body.id);

    const other = await newUser();
    const taken = await owner.b.dash('POST', `${other.path}/phone_numbers`, { body: { phone_number: '+14155550123' } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].meta).toMatchObject({ param: 'phone_number', reason: 'taken' });
    const bad = await owner.b.dash('POST', `${other.path}/email_addresses`, { body: { email_address: 'not an address' } });
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0].meta.param).toBe('email_address');
    const second = await owner.b.dash('POST', `${other.path}/phone_numbers`, { body: { phone_number: '+14155550124' } });
    expect((await owner.b.dash('DELETE', `${other.path}/phone_numbers/${second.body.id}`)).status).toBe(200);
    expect(await audited('user.phone_number_removed', other.id)).toHaveLength(1);
  });

  it('another user’s identifier, or another instance’s user, is 404', async () => {
    const a = await newUser();
    const b = await newUser();
    const aUser = (await owner.b.dash('GET', a.path)).body;
    expect((await owner.b.dash('POST', `${b.path}/email_addresses/${aUser.email_addresses[0].id}/verify`)).status).toBe(404);
    expect((await owner.b.dash('DELETE', `${b.path}/email_addresses/${aUser.email_addresses[0].id}`)).status).toBe(404);
    const elsewhere = await consoleInstance(owner, 'Elsewhere');
    expect(
      (await owner.b.dash('POST', `${elsewhere.base}/users/${a.id}/email_addresses`, { body: { email_address: 'x@example.com' } })).status,
    ).toBe(404);
    expect((await owner.b.dash('GET', `${elsewhere.base}/users/${a.id}/api_tokens`)).status).toBe(404);
  });
});

describe('dashboard: password, second factor, lock', () => {
  it('sets a password (the old one stops working) and, when asked, signs the user out everywhere', async () => {
    const u = await newUser();
    const session = await h.call('POST', '/v1/sessions', { key: inst.secret, body: { user_id: u.id } });
    expect(session.status).toBe(200);
    const weak = await owner.b.dash('PUT', `${u.path}/password`, { body: { password: 'password' } });
    expect(weak.status).toBe(422);
    expect(weak.body.errors[0].meta).toMatchObject({ param: 'password', reason: 'password_compromised' });
    expect((await owner.b.dash('PUT', `${u.path}/password`, { body: { password: u.email } })).body.errors[0].meta.reason).toBe(
      'matches_identifier',
    );

    const kept = await owner.b.dash('PUT', `${u.path}/password`, { body: { password: 'another long passphrase' } });
    expect(kept.status, JSON.stringify(kept.body)).toBe(200);
    expect((await owner.b.dash('GET', `${u.path}/sessions`)).body.data[0].status).toBe('active');
    expect((await signIn(u.email, PASSWORD)).status).toBe(422);

    const out = await owner.b.dash('PUT', `${u.path}/password`, {
      body: { password: 'a third long passphrase', sign_out_of_all_sessions: true },
    });
    expect(out.status).toBe(200);
    expect(out.body.sessions_version).toBe(kept.body.sessions_version + 1);
    expect((await owner.b.dash('GET', `${u.path}/sessions`)).body.data[0].status).toBe('revoked');
    expect(await audited('session.revoked_all', u.id)).toHaveLength(1);
    expect((await audited('user.updated', u.id)).length).toBeGreaterThanOrEqual(2);
  });

  it('turns off the second factor (TOTP and backup codes) with no proof asked; audited; a repeat is a no-op', async () => {
    const u = await newUser();
    await enrollTotp(h, inst.id, u.id);
    expect((await owner.b.dash('GET', u.path)).body.two_factor_enabled).toBe(true);
    const off = await owner.b.dash('DELETE', `${u.path}/mfa`);
    expect(off.status).toBe(200);
    expect(off.body).toEqual({ user_id: u.id });
    expect((await owner.b.dash('GET', u.path)).body.two_factor_enabled).toBe(false);
    expect((await owner.b.dash('DELETE', `${u.path}/mfa`)).status).toBe(200);
    expect((await audited('user.mfa_disabled', u.id))[0]?.actor).toBe(`operator:${owner.operator.id}`);
    // Signing in needs no second factor now.
    const res = await signIn(u.email, PASSWORD);
    expect(res.status).toBe(200);
    expect(res.body.response.status).toBe('complete');
  });

  it('locks a user until unlocked, even with lockout protection off; unlock lifts it; both audited', async () => {
    const off = await owner.b.dash('PATCH', `${inst.base}/attack_protection`, { body: { user_lockout: { enabled: false } } });
    expect(off.status, JSON.stringify(off.body)).toBe(200);
    const u = await newUser();
    const locked = await owner.b.dash('POST', `${u.path}/lock`);
    expect(locked.status).toBe(200);
    expect(locked.body).toMatchObject({ locked: true, locked_until: null });
    const refused = await signIn(u.email, PASSWORD);
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toMatchObject({ code: 'USER_LOCKED', meta: { expires_at: null } });
    expect((await owner.b.dash('GET', `${inst.base}/users?locked=true`)).body.data.map((x: { id: string }) => x.id)).toContain(u.id);

    expect((await owner.b.dash('POST', `${u.path}/unlock`)).body.locked).toBe(false);
    expect((await signIn(u.email, PASSWORD)).status).toBe(200);
    expect((await audited('user.locked', u.id))[0]?.actor).toBe(`operator:${owner.operator.id}`);
    expect(await audited('user.unlocked', u.id)).toHaveLength(1);
    await owner.b.dash('PATCH', `${inst.base}/attack_protection`, { body: { user_lockout: { enabled: true } } });
  });
});

describe('dashboard: a user’s organizations and personal access tokens', () => {
  it('lists memberships with the organization and role', async () => {
    const u = await newUser();
    const org = await owner.b.dash('POST', `${inst.base}/organizations`, { body: { name: 'Acme', created_by: u.id } });
    expect(org.status, JSON.stringify(org.body)).toBe(200);
    const list = await viewer.dash('GET', `${u.path}/organization_memberships?limit=10`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(list.body.data).toHaveLength(1);
    expect(list.body.data[0]).toMatchObject({ organization: { id: org.body.id, name: 'Acme' }, role: 'org:admin' });
  });

  it('lists unrevoked tokens (never a secret) and revokes one, audited', async () => {
    const u = await newUser();
    const session = (await h.call('POST', '/v1/sessions', { key: inst.secret, body: { user_id: u.id } })).body.id as string;
    const made = await createApiToken(
      h.runtime.deps,
      inst.id,
      { userId: u.id, sessionId: session, name: 'CLI', scopes: ['me:read'] },
      systemContext('test'),
    );
    const list = await viewer.dash('GET', `${u.path}/api_tokens`);
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ object: 'list', has_more: false, data: [{ id: made.id, name: 'CLI', status: 'active' }] });
    expect(JSON.stringify(list.body)).not.toContain(made.token);
    const revoked = await owner.b.dash('POST', `${u.path}/api_tokens/${made.id}/revoke`);
    expect(revoked.body).toMatchObject({ id: made.id, status: 'revoked' });
    expect((await owner.b.dash('GET', `${u.path}/api_tokens`)).body.data).toEqual([]);
    expect((await audited('api_token.revoked', made.id))[0]?.actor).toBe(`operator:${owner.operator.id}`);
    const other = await newUser();
    expect((await owner.b.dash('POST', `${other.path}/api_tokens/${made.id}/revoke`)).status).toBe(404);
  });
});

describe('dashboard: user page authorization', () => {
  it('a viewer reads but changes nothing (403)', async () => {
    const u = await newUser();
    const writes: Array<[string, string, unknown?]> = [
      ['POST', `${u.path}/email_addresses`, { email_address: 'v@example.com' }],
      ['POST', `${u.path}/email_addresses/idn_x/verify`],
      ['DELETE', `${u.path}/email_addresses/idn_x`],
      ['POST', `${u.path}/phone_numbers`, { phone_number: '+14155550199' }],
      ['POST', `${u.path}/phone_numbers/idn_x/verify`],
      ['DELETE', `${u.path}/phone_numbers/idn_x`],
      ['PUT', `${u.path}/password`, { password: 'viewer passphrase 2' }],
      ['DELETE', `${u.path}/mfa`],
      ['POST', `${u.path}/lock`],
      ['POST', `${u.path}/unlock`],
      ['PATCH', u.path, { first_name: 'Nope' }],
      ['POST', `${u.path}/api_tokens/pat_x/revoke`],
    ];
    for (const [method, path, body] of writes) {
      const res = await viewer.dash(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.errors[0].meta.reason).toBe('role_required');
    }
    expect((await viewer.dash('GET', `${u.path}/api_tokens`)).status).toBe(200);
    expect((await viewer.dash('GET', `${u.path}/organization_memberships`)).status).toBe(200);
  });

  it('edits names and username (taken is 422 naming it)', async () => {
    const a = await newUser({ username: `taken_${n}` });
    const b = await newUser();
    const ok = await owner.b.dash('PATCH', b.path, { body: { first_name: 'Grace', last_name: 'Hopper', username: 'grace_h' } });
    expect(ok.body).toMatchObject({ first_name: 'Grace', last_name: 'Hopper', username: 'grace_h' });
    const taken = await owner.b.dash('PATCH', b.path, { body: { username: (await owner.b.dash('GET', a.path)).body.username } });
    expect(taken.status).toBe(422);
    expect(taken.body.errors[0].meta).toMatchObject({ param: 'username', reason: 'taken' });
  });
});
