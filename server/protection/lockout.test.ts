import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs } from '../db/schema';
import { browserOf, enrollTotp, eventsSince, nativeOf, type TestInstance } from '../testing/auth-flows';
import type { FapiResult } from '../testing/fapi-client';
import { totpCode } from '../testing/fapi-helpers';
import { createHarness, type TestHarness } from '../testing/harness';

/** User lockout: N failed first- or second-factor attempts within the window lock the account for D minutes. */
let h: TestHarness;
let A: TestInstance;
let n = 0;
const PASSWORD = 'a long passphrase';
const MINUTE = 60_000;

beforeAll(async () => {
  h = await createHarness();
  A = await h.createInstance();
  const res = await h.call('PATCH', '/v1/attack_protection', {
    key: A.secret,
    body: { user_lockout: { max_attempts: 3, window_minutes: 10, lockout_minutes: 15 } },
  });
  expect(res.status).toBe(200);
});
afterAll(() => h.close());

async function newUser() {
  const email = `person${++n}@example.com`;
  const res = await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [email], password: PASSWORD } });
  expect(res.status).toBe(200);
  return { id: res.body.id as string, email };
}

const signIn = (b: ReturnType<typeof browserOf>, identifier: string, password: string) =>
  b.call('POST', '/v1/client/sign_ins', { body: { identifier, password } });

/** Ids and times masked: what an observer could compare between two accounts. */
const shape = (r: FapiResult) =>
  JSON.parse(
    JSON.stringify({ status: r.status, body: r.body })
      .replace(/"(sia|client|req)_[0-9A-Z]{26}"/g, '"<id>"')
      .replace(/person\d+@example\.com|nobody\d+@example\.com/g, '<email>')
      .replace(/"(abandon_at|created_at|updated_at|expires_at)":\d+/g, '"$1":0'),
  );

describe('user lockout on the FAPI', () => {
  it('locks after N wrong passwords: 403 USER_LOCKED with meta.expires_at, even for the right password; user.locked shows; expiry by the clock', async () => {
    const u = await newUser();
    const b = browserOf(h, A);
    const since = h.clock.now();
    expect((await signIn(b, u.email, 'wrong password 1')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await signIn(b, u.email, 'wrong password 2')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    const third = await signIn(b, u.email, 'wrong password 3');
    const until = h.clock.now() + 15 * MINUTE;
    expect(third.status).toBe(403);
    expect(third.body.errors[0]).toMatchObject({ code: 'USER_LOCKED', meta: { expires_at: until } });
    // Locked: the right password does not help.
    const right = await signIn(b, u.email, PASSWORD);
    expect(right.status).toBe(403);
    expect(right.body.errors[0]).toMatchObject({ code: 'USER_LOCKED', meta: { expires_at: until } });

    const user = await h.call('GET', `/v1/users/${u.id}`, { key: A.secret });
    expect(user.body).toMatchObject({ locked: true, locked_until: until });
    const events = await eventsSince(h, A.instanceId, since);
    expect(events.filter((e) => e.type === 'user.updated').map((e) => e.data)).toEqual([user.body]);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'user.locked'), eq(auditLogs.target, u.id)));
    expect(entry).toMatchObject({ actor: 'system:attack_protection', details: { failed_attempts: 3, locked_until: until } });
    const metrics = await (await h.request('GET', '/metrics')).text();
    expect(metrics).toContain(`latchkey_attack_protection_total{instance="${A.instanceId}",rule="user_lockout"}`);

    h.clock.advance(15 * MINUTE - 1);
    expect((await signIn(b, u.email, PASSWORD)).status).toBe(403);
    h.clock.advance(1);
    expect((await h.call('GET', `/v1/users/${u.id}`, { key: A.secret })).body).toMatchObject({ locked: false, locked_until: null });
    const after = await signIn(browserOf(h, A), u.email, PASSWORD);
    expect(after.status).toBe(200);
    expect(after.body.response.status).toBe('complete');
  });

  it('counts within the window only, and a completed sign-in starts the count afresh', async () => {
    const u = await newUser();
    const b = nativeOf(h, A);
    await signIn(b, u.email, 'wrong 1 password');
    await signIn(b, u.email, 'wrong 2 password');
    h.clock.advance(10 * MINUTE + 1); // both fall out of the window
    expect((await signIn(b, u.email, 'wrong 3 password')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await signIn(b, u.email, 'wrong 4 password')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await signIn(b, u.email, PASSWORD)).status).toBe(200);
    expect((await signIn(b, u.email, 'wrong 5 password')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await signIn(b, u.email, 'wrong 6 password')).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await signIn(b, u.email, 'wrong 7 password')).body.errors[0].code).toBe('USER_LOCKED');
  });

  it('counts wrong second factors after a password, not wrong email codes', async () => {
    const u = await newUser();
    const { secret } = await enrollTotp(h, A.instanceId, u.id);
    const b = browserOf(h, A);
    const started = await signIn(b, u.email, PASSWORD);
    expect(started.body.response.status).toBe('needs_second_factor');
    const id = started.body.response.id;
    const second = (code: string) =>
      b.call('POST', `/v1/client/sign_ins/${id}/attempt_second_factor`, { body: { strategy: 'totp', code } });
    expect((await second('000000')).body.errors[0].code).toBe('CODE_INCORRECT');
    // Wrong email codes are limited by the code's own tries; they never lock the account.
    const other = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } });
    await b.call('POST', `/v1/client/sign_ins/${other.body.response.id}/prepare_first_factor`, { body: { strategy: 'email_code' } });
    for (let i = 0; i < 3; i++) {
      const code = await b.call('POST', `/v1/client/sign_ins/${other.body.response.id}/attempt_first_factor`, {
        body: { strategy: 'email_code', code: '000000' },
      });
      expect(code.body.errors[0].code).toBe('CODE_INCORRECT');
    }
    expect((await second('111111')).body.errors[0].code).toBe('CODE_INCORRECT');
    const third = await second('222222');
    expect(third.status).toBe(403);
    expect(third.body.errors[0].code).toBe('USER_LOCKED');
    expect((await second(totpCode(h, secret, 1))).body.errors[0].code).toBe('USER_LOCKED');
  });

  it('never locks the owner out of recovery: codes, links and the reset stay open, and a completed reset ends the lockout', async () => {
    const u = await newUser();
    // An attacker's paced wrong passwords lock the account …
    for (let i = 0; i < 3; i++) await signIn(browserOf(h, A), u.email, `attacker guess ${i}`);
    expect((await signIn(browserOf(h, A), u.email, PASSWORD)).body.errors[0].code).toBe('USER_LOCKED');
    // … but the owner's email code signs in.
    const owner = browserOf(h, A);
    const byCode = await owner.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } });
    expect(byCode.status).toBe(200);
    await owner.call('POST', `/v1/client/sign_ins/${byCode.body.response.id}/prepare_first_factor`, { body: { strategy: 'email_code' } });
    const code = (await h.outbox(u.email))[0]!.data.code as string;
    const done = await owner.call('POST', `/v1/client/sign_ins/${byCode.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'email_code', code },
    });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.response.status).toBe('complete');
    // The password reset is open too, and completing it ends the lockout (a new code may go to the address 30 s on).
    h.clock.advance(31_000);
    const reset = browserOf(h, A);
    const r = await reset.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } });
    await reset.call('POST', `/v1/client/sign_ins/${r.body.response.id}/prepare_first_factor`, {
      body: { strategy: 'reset_password_email_code' },
    });
    const resetCode = (await h.outbox(u.email))[0]!.data.code as string;
    const verified = await reset.call('POST', `/v1/client/sign_ins/${r.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'reset_password_email_code', code: resetCode },
    });
    expect(verified.body.response.status).toBe('needs_new_password');
    const newPassword = 'an entirely new passphrase';
    const set = await reset.call('POST', `/v1/client/sign_ins/${r.body.response.id}/reset_password`, { body: { password: newPassword } });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect((await h.call('GET', `/v1/users/${u.id}`, { key: A.secret })).body).toMatchObject({ locked: false, locked_until: null });
    expect((await signIn(browserOf(h, A), u.email, newPassword)).body.response.status).toBe('complete');
  });

  it('an operator’s lock stops codes and the reset too', async () => {
    const u = await newUser();
    expect((await h.call('POST', `/v1/users/${u.id}/lock`, { key: A.secret })).status).toBe(200);
    const b = browserOf(h, A);
    const a = await b.call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } });
    await b.call('POST', `/v1/client/sign_ins/${a.body.response.id}/prepare_first_factor`, { body: { strategy: 'email_code' } });
    const code = (await h.outbox(u.email))[0]!.data.code as string;
    const done = await b.call('POST', `/v1/client/sign_ins/${a.body.response.id}/attempt_first_factor`, {
      body: { strategy: 'email_code', code },
    });
    expect(done.status).toBe(403);
    expect(done.body.errors[0]).toMatchObject({ code: 'USER_LOCKED', meta: { expires_at: null } });
    await h.call('POST', `/v1/users/${u.id}/unlock`, { key: A.secret });
  });

  it('answers an identifier that names nobody exactly like a real account, locked or not', async () => {
    const u = await newUser();
    const nobody = `nobody${++n}@example.com`;
    const real: FapiResult[] = [];
    const fake: FapiResult[] = [];
    for (let i = 0; i < 4; i++) {
      real.push(await signIn(browserOf(h, A), u.email, `wrong guess ${i}`));
      fake.push(await signIn(browserOf(h, A), nobody, `wrong guess ${i}`));
    }
    real.push(await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: u.email } }));
    fake.push(await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: nobody } }));
    expect(real.map((r) => r.body.errors?.[0]?.code ?? r.status)).toEqual([
      'CREDENTIALS_INVALID',
      'CREDENTIALS_INVALID',
      'USER_LOCKED',
      'USER_LOCKED',
      200,
    ]);
    expect(fake.map(shape)).toEqual(real.map(shape));
    h.clock.advance(15 * MINUTE);
    expect(shape(await signIn(browserOf(h, A), nobody, 'wrong guess again'))).toEqual(
      shape(await signIn(browserOf(h, A), u.email, 'wrong guess again')),
    );
  });

  it('locks nothing when lockout is off', async () => {
    const B = await h.createInstance();
    await h.call('PATCH', '/v1/attack_protection', { key: B.secret, body: { user_lockout: { enabled: false, max_attempts: 3 } } });
    const email = `person${++n}@example.com`;
    await h.call('POST', '/v1/users', { key: B.secret, body: { email_address: [email], password: PASSWORD } });
    for (let i = 0; i < 5; i++)
      expect((await signIn(browserOf(h, B), email, `wrong guess ${i}`)).body.errors[0].code).toBe('CREDENTIALS_INVALID');
    expect((await signIn(browserOf(h, B), email, PASSWORD)).status).toBe(200);
  });
});

describe('POST /v1/users/:id/unlock', () => {
  it('ends the lockout at once: user.updated, audited, and sign-in works again; a no-op for an unlocked user', async () => {
    const u = await newUser();
    for (let i = 0; i < 3; i++) await signIn(browserOf(h, A), u.email, `wrong guess ${i}`);
    expect((await h.call('GET', `/v1/users/${u.id}`, { key: A.secret })).body.locked).toBe(true);
    h.clock.advance(1);
    const since = h.clock.now();
    const unlocked = await h.call('POST', `/v1/users/${u.id}/unlock`, { key: A.secret });
    expect(unlocked.status).toBe(200);
    expect(unlocked.body).toMatchObject({ id: u.id, locked: false, locked_until: null });
    expect((await eventsSince(h, A.instanceId, since)).map((e) => [e.type, e.data.id])).toEqual([['user.updated', u.id]]);
    const [entry] = await h.runtime.deps.db
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.action, 'user.unlocked'), eq(auditLogs.target, u.id)));
    expect(entry).toMatchObject({ actor: `key:${A.keyId}` });
    expect((await signIn(browserOf(h, A), u.email, PASSWORD)).status).toBe(200);

    h.clock.advance(1);
    const later = h.clock.now();
    const again = await h.call('POST', `/v1/users/${u.id}/unlock`, { key: A.secret });
    expect(again.body.locked).toBe(false);
    expect((await eventsSince(h, A.instanceId, later)).filter((e) => e.type === 'user.updated')).toEqual([]);
  });

  it('needs users:write; another instance’s user is 404', async () => {
    const u = await newUser();
    const reader = await h.createKey(A.instanceId, 'users:read');
    expect((await h.call('POST', `/v1/users/${u.id}/unlock`, { key: reader.secret })).status).toBe(403);
    const B = await h.createInstance();
    expect((await h.call('POST', `/v1/users/${u.id}/unlock`, { key: B.secret })).status).toBe(404);
  });
});
