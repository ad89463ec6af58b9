import { and, asc, eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { emailAddresses, events, users } from '../db/schema';
import { sharedHarness } from '../testing/harness';
import { storedPassword } from '../testing/fapi-helpers';
import { expectError } from '../testing/expect';
import type { PasswordHasher } from '../crypto/passwords';
import { raceTest } from '../testing/races';

// Many requests per key below; the default test-instance budget (100 / 10 s) is not under test here.
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
/** Through the runtime's password pool, as sign-in does. */
const verifyPassword = (password: string, digest: string, hasher: PasswordHasher) =>
  h.runtime.deps.passwords.verify(password, digest, hasher);
let key: string;
let instanceId: string;
beforeAll(async () => {
  ({ secret: key, instanceId } = await h.createInstance());
});

let seq = 0;
/** A unique email per call, so tests do not collide within the shared instance. */
const uniqueEmail = (tag = 'u') => `${tag}.${Date.now().toString(36)}.${++seq}@example.com`;

const create = (body: unknown, k = key) => h.call('POST', '/v1/users', { key: k, body });

async function createOk(body: Record<string, unknown>, k = key) {
  const res = await create(body, k);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
}

async function eventsOf(instance: string, type?: string) {
  const db = h.runtime.deps.db;
  const where = type ? and(eq(events.instanceId, instance), eq(events.type, type)) : eq(events.instanceId, instance);
  return db.select().from(events).where(where).orderBy(asc(events.id));
}

describe('POST /v1/users', () => {
  it('creates and fetches a user', async () => {
    const created = await h.call('POST', '/v1/users', {
      key,
      body: { email_address: ['Ada@Example.com'], first_name: 'Ada', password: 'correct horse battery' },
    });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ object: 'user', first_name: 'Ada', password_enabled: true });
    const got = await h.call('GET', `/v1/users/${created.body.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body.email_addresses[0].email_address).toBe('Ada@Example.com');
  });

  it('returns the full user with every field given', async () => {
    const email1 = uniqueEmail('full');
    const email2 = uniqueEmail('full2');
    const before = h.clock.now();
    const body = await createOk({
      email_address: [email1, email2],
      phone_number: ['+14155550101', '+14155550102'],
      username: 'full_user.1',
      first_name: 'Grace',
      last_name: 'Hopper',
      external_id: 'ext-full-1',
      public_metadata: { plan: 'pro', nested: { a: 1 } },
      private_metadata: { stripe: 'cus_1' },
      unsafe_metadata: { theme: 'dark' },
    });
    expect(body).toMatchObject({
      object: 'user',
      id: expect.stringMatching(/^user_[0-9A-HJKMNP-TV-Z]{26}$/),
      username: 'full_user.1',
      first_name: 'Grace',
      last_name: 'Hopper',
      external_id: 'ext-full-1',
      password_enabled: false,
      two_factor_enabled: false,
      banned: false,
      locked: false,
      public_metadata: { plan: 'pro', nested: { a: 1 } },
      private_metadata: { stripe: 'cus_1' },
      unsafe_metadata: { theme: 'dark' },
      created_at: before,
      updated_at: before,
    });
    expect(body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual([email1, email2]);
    expect(body.phone_numbers.map((p: { phone_number: string }) => p.phone_number)).toEqual(['+14155550101', '+14155550102']);
    expect(body.email_addresses[0]).toMatchObject({ object: 'email_address', id: expect.stringMatching(/^idn_/) });
    // The first address and number given are primary.
    expect(body.primary_email_address_id).toBe(body.email_addresses[0].id);
    expect(body.primary_phone_number_id).toBe(body.phone_numbers[0].id);

    const got = await h.call('GET', `/v1/users/${body.id}`, { key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(body);
  });

  it('accepts a single email address as a string', async () => {
    const email = uniqueEmail('single');
    const body = await createOk({ email_address: email });
    expect(body.email_addresses).toHaveLength(1);
    expect(body.email_addresses[0].email_address).toBe(email);
    expect(body.primary_email_address_id).toBe(body.email_addresses[0].id);
  });

  it('accepts a single phone number as a string, or a username alone', async () => {
    const byPhone = await createOk({ phone_number: '+442071838750' });
    expect(byPhone.phone_numbers.map((p: { phone_number: string }) => p.phone_number)).toEqual(['+442071838750']);
    expect(byPhone.email_addresses).toEqual([]);
    expect(byPhone.primary_email_address_id).toBeNull();

    const byUsername = await createOk({ username: 'only_a_username' });
    expect(byUsername.username).toBe('only_a_username');
    expect(byUsername.email_addresses).toEqual([]);
    expect(byUsername.phone_numbers).toEqual([]);
  });

  it('hashes the password and never returns it', async () => {
    const password = 'a fine long passphrase';
    const res = await create({ email_address: uniqueEmail('pw'), password });
    expect(res.status).toBe(200);
    expect(res.body.password_enabled).toBe(true);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain(password);
    expect(text).not.toMatch(/password_digest|password_hasher|"password"|\$argon2/);

    const stored = await storedPassword(h, res.body.id);
    expect(stored.digest).not.toBe(password);
    expect(stored.digest).toMatch(/^\$argon2id\$/);
    expect(stored.hasher).toBe('argon2id');
    expect(await verifyPassword(password, stored.digest!, stored.hasher as PasswordHasher)).toBe(true);
    expect(await verifyPassword('not the passphrase', stored.digest!, stored.hasher as PasswordHasher)).toBe(false);

    const got = await h.call('GET', `/v1/users/${res.body.id}`, { key });
    expect(JSON.stringify(got.body)).not.toMatch(/password_digest|\$argon2/);
    const listed2 = await h.call('GET', `/v1/users?query=${res.body.id}`, { key });
    expect(listed2.body.data).toHaveLength(1);
    expect(JSON.stringify(listed2.body)).not.toMatch(/password_digest|\$argon2/);
  });

  it('creates a user without a password: password_enabled false', async () => {
    const body = await createOk({ email_address: uniqueEmail('nopw') });
    expect(body.password_enabled).toBe(false);
    expect((await storedPassword(h, body.id)).digest).toBeNull();
  });

  describe('validation', () => {
    it('refuses a malformed email address', async () => {
      for (const email_address of ['not-an-email', ['ok@example.com', 'nope@'], '@example.com']) {
        const e = expectError(await create({ email_address }), 422, 'VALIDATION_FAILED');
        expect(String(e.meta.param)).toMatch(/^email_address(\.\d+)?$/);
        expect(e.meta.reason).toEqual(expect.any(String));
      }
    });

    it('refuses a malformed phone number or username', async () => {
      const p = expectError(await create({ phone_number: '555-1234' }), 422, 'VALIDATION_FAILED');
      expect(String(p.meta.param)).toMatch(/^phone_number(\.\d+)?$/);
      expectError(await create({ username: 'ab' }), 422, 'VALIDATION_FAILED', { param: 'username' });
      expectError(await create({ username: 'has space' }), 422, 'VALIDATION_FAILED', { param: 'username' });
    });

    it('refuses a password that is too short', async () => {
      expectError(await create({ email_address: uniqueEmail(), password: 'short' }), 422, 'VALIDATION_FAILED', {
        param: 'password',
        reason: 'too_small',
      });
    });

    it('refuses a password equal to an identifier, whatever the case', async () => {
      const email = uniqueEmail('same');
      expectError(await create({ email_address: email, password: email.toUpperCase() }), 422, 'VALIDATION_FAILED', {
        param: 'password',
        reason: 'matches_identifier',
      });
      expectError(await create({ username: 'LongUsername1', password: 'longusername1' }), 422, 'VALIDATION_FAILED', {
        param: 'password',
        reason: 'matches_identifier',
      });
      expectError(await create({ phone_number: '+14155550999', password: '+14155550999' }), 422, 'VALIDATION_FAILED', {
        param: 'password',
        reason: 'matches_identifier',
      });
      // Nothing was created by the refused requests.
      const listed = await h.call('GET', `/v1/users?email_address=${encodeURIComponent(email)}`, { key });
      expect(listed.body.data).toEqual([]);
    });

    it('refuses an unknown field', async () => {
      expectError(await create({ email_address: uniqueEmail(), nickname: 'x' }), 422, 'VALIDATION_FAILED', {
        param: 'nickname',
        reason: 'unknown_field',
      });
    });

    it('refuses wrong types, naming the field', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ email_address: 42 }, 'email_address'],
        [{ email_address: uniqueEmail(), first_name: 123 }, 'first_name'],
        [{ email_address: uniqueEmail(), public_metadata: 'x' }, 'public_metadata'],
        [{ email_address: uniqueEmail(), public_metadata: [1, 2] }, 'public_metadata'],
        [{ email_address: uniqueEmail(), password: 12345678 }, 'password'],
        [{ email_address: uniqueEmail(), external_id: false }, 'external_id'],
      ];
      for (const [body, param] of cases) {
        const e = expectError(await create(body), 422, 'VALIDATION_FAILED');
        expect(String(e.meta.param), JSON.stringify(body)).toMatch(new RegExp(`^${param}(\\.\\d+)?$`));
        expect(e.meta.reason).toBe('invalid_type');
      }
    });

    it('refuses a body that is not an object', async () => {
      for (const raw of ['[]', '"user"', '42', 'null']) {
        const res = await h.call('POST', '/v1/users', { key, raw, headers: { 'content-type': 'application/json' } });
        expectError(res, 422, 'VALIDATION_FAILED', { param: 'body' });
      }
    });

    it('requires an identifier', async () => {
      for (const body of [{}, { first_name: 'Nobody' }, { password: 'long enough password' }, { email_address: [] }]) {
        expectError(await create(body), 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'identifier_required' });
      }
    });

    it('lists one entry per problem', async () => {
      const res = await create({ email_address: 'bad', first_name: 1, extra: true });
      expectError(res, 422, 'VALIDATION_FAILED');
      const params = res.body.errors.map((e: { meta: { param: string } }) => e.meta.param);
      expect(params).toEqual(expect.arrayContaining(['first_name', 'extra']));
      expect(params.some((p: string) => p.startsWith('email_address'))).toBe(true);
    });
  });

  describe('uniqueness', () => {
    it('refuses an email address already taken, case-insensitively', async () => {
      const email = uniqueEmail('Taken');
      await createOk({ email_address: email });
      const dup = await create({ email_address: email.toLowerCase().replace('@example.com', '@EXAMPLE.COM') });
      expectError(dup, 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'taken' });
      // A second address alongside a taken one is refused as a whole.
      const mixed = await create({ email_address: [uniqueEmail('fresh'), email.toUpperCase()] });
      expectError(mixed, 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'taken' });
    });

    it('refuses a username already taken, case-insensitively', async () => {
      await createOk({ username: 'CaseyJones' });
      expectError(await create({ username: 'caseyjones' }), 422, 'VALIDATION_FAILED', { param: 'username', reason: 'taken' });
      expectError(await create({ username: 'CASEYJONES', email_address: uniqueEmail() }), 422, 'VALIDATION_FAILED', {
        param: 'username',
        reason: 'taken',
      });
    });

    it('refuses a phone number already taken', async () => {
      await createOk({ phone_number: '+14155550777' });
      expectError(await create({ phone_number: '+14155550777' }), 422, 'VALIDATION_FAILED', { param: 'phone_number', reason: 'taken' });
    });

    it('collapses the same address given twice in one request', async () => {
      const email = uniqueEmail('twice');
      const body = await createOk({ email_address: [email, email.toUpperCase()] });
      expect(body.email_addresses).toHaveLength(1);
    });

    it('allows the same email and username in another instance', async () => {
      const other = await h.createInstance();
      const email = uniqueEmail('shared');
      await createOk({ email_address: email, username: 'shared_name' });
      await createOk({ email_address: email, username: 'shared_name' }, other.secret);
    });

    raceTest('two concurrent creates with the same email: one user, the other a clear 422', async () => {
      const email = uniqueEmail('race');
      const results = await Promise.all([create({ email_address: email }), create({ email_address: email.toUpperCase() })]);
      const statuses = results.map((r) => r.status).sort();
      expect(statuses).toEqual([200, 422]);
      const refused = results.find((r) => r.status === 422)!;
      expectError(refused, 422, 'VALIDATION_FAILED', { param: 'email_address', reason: 'taken' });
      const rows = await h.runtime.deps.db
        .select()
        .from(emailAddresses)
        .where(and(eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.emailKey, email.toLowerCase())));
      expect(rows).toHaveLength(1);
    });

    raceTest('two concurrent creates with the same username: one user, the other a clear 422', async () => {
      const results = await Promise.all([create({ username: 'racer_name' }), create({ username: 'RACER_NAME' })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 422]);
      expectError(
        results.find((r) => r.status === 422)!,
        422,
        'VALIDATION_FAILED',
        { param: 'username', reason: 'taken' },
      );
    });
  });
});

describe('GET /v1/users/:id', () => {
  it('404 for a missing id and for another instance’s user, with the same body', async () => {
    const other = await h.createInstance();
    const foreign = await createOk({ email_address: uniqueEmail('foreign') }, other.secret);
    // The owner sees it.
    expect((await h.call('GET', `/v1/users/${foreign.id}`, { key: other.secret })).status).toBe(200);

    const missing = await h.call('GET', '/v1/users/user_01J0000000000000000000000Z', { key });
    const crossInstance = await h.call('GET', `/v1/users/${foreign.id}`, { key });
    const garbage = await h.call('GET', '/v1/users/not-an-id', { key });
    for (const res of [missing, crossInstance, garbage]) expectError(res, 404, 'NOT_FOUND');
    const strip = (b: { errors: unknown }) => b.errors;
    expect(strip(crossInstance.body)).toEqual(strip(missing.body));
    expect(strip(garbage.body)).toEqual(strip(missing.body));
    expect(JSON.stringify(crossInstance.body)).not.toContain(foreign.id);
  });

  it('another instance’s user cannot be changed, deleted or banned either', async () => {
    const other = await h.createInstance();
    const foreign = await createOk({ email_address: uniqueEmail('foreign2') }, other.secret);
    const missingId = 'user_01J0000000000000000000000Z';
    const attempts = [
      ['PATCH', { first_name: 'Hacked' }],
      ['DELETE', undefined],
    ] as const;
    for (const [method, body] of attempts) {
      const a = await h.call(method, `/v1/users/${foreign.id}`, { key, body });
      const b = await h.call(method, `/v1/users/${missingId}`, { key, body });
      expectError(a, 404, 'NOT_FOUND');
      expect(a.body.errors).toEqual(b.body.errors);
    }
    for (const action of ['ban', 'unban']) {
      const a = await h.call('POST', `/v1/users/${foreign.id}/${action}`, { key });
      const b = await h.call('POST', `/v1/users/${missingId}/${action}`, { key });
      expectError(a, 404, 'NOT_FOUND');
      expect(a.body.errors).toEqual(b.body.errors);
    }
    const still = await h.call('GET', `/v1/users/${foreign.id}`, { key: other.secret });
    expect(still.status).toBe(200);
    expect(still.body).toEqual(foreign);
    expect(await eventsOf(instanceId, 'user.banned').then((rows) => rows.filter((r) => r.data.id === foreign.id))).toEqual([]);
  });
});

describe('PATCH /v1/users/:id', () => {
  it('updates names and username; a null clears a name', async () => {
    const user = await createOk({ email_address: uniqueEmail('patch'), first_name: 'Old', last_name: 'Name', username: 'old_username' });
    h.clock.advance(1000);
    const res = await h.call('PATCH', `/v1/users/${user.id}`, {
      key,
      body: { first_name: 'New', last_name: null, username: 'New_Username' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: user.id, first_name: 'New', last_name: null, username: 'New_Username' });
    expect(res.body.updated_at).toBe(user.updated_at + 1000);
    expect(res.body.created_at).toBe(user.created_at);
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).body).toEqual(res.body);
    // The old username is free again, the new one is taken case-insensitively.
    await createOk({ username: 'old_username' });
    expectError(await create({ username: 'new_username' }), 422, 'VALIDATION_FAILED', { param: 'username', reason: 'taken' });
  });

  it('lets a user change the case of its own username but not take another’s', async () => {
    const a = await createOk({ username: 'alpha_user' });
    await createOk({ username: 'beta_user' });
    const own = await h.call('PATCH', `/v1/users/${a.id}`, { key, body: { username: 'Alpha_User' } });
    expect(own.status).toBe(200);
    expect(own.body.username).toBe('Alpha_User');
    expectError(await h.call('PATCH', `/v1/users/${a.id}`, { key, body: { username: 'BETA_USER' } }), 422, 'VALIDATION_FAILED', {
      param: 'username',
      reason: 'taken',
    });
    expect((await h.call('GET', `/v1/users/${a.id}`, { key })).body.username).toBe('Alpha_User');
  });

  it('deep-merges metadata; null deletes a key', async () => {
    const user = await createOk({
      email_address: uniqueEmail('meta'),
      public_metadata: { keep: 1, drop: 2, nested: { a: 1, b: 2, deep: { x: 1 } }, list: [1, 2] },
      private_metadata: { secret: 'x' },
    });
    const res = await h.call('PATCH', `/v1/users/${user.id}`, {
      key,
      body: {
        public_metadata: { drop: null, added: true, nested: { b: null, c: 3, deep: { y: 2 } }, list: [3] },
        unsafe_metadata: { fresh: 'yes' },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.public_metadata).toEqual({ keep: 1, added: true, nested: { a: 1, c: 3, deep: { x: 1, y: 2 } }, list: [3] });
    // Untouched metadata stays as it was.
    expect(res.body.private_metadata).toEqual({ secret: 'x' });
    expect(res.body.unsafe_metadata).toEqual({ fresh: 'yes' });
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).body.public_metadata).toEqual(res.body.public_metadata);
  });

  it('sets primary_email_address_id only to one of the user’s own addresses', async () => {
    const user = await createOk({ email_address: [uniqueEmail('p1'), uniqueEmail('p2')] });
    const other = await createOk({ email_address: uniqueEmail('p3') });
    const second = user.email_addresses[1].id;
    const res = await h.call('PATCH', `/v1/users/${user.id}`, { key, body: { primary_email_address_id: second } });
    expect(res.status).toBe(200);
    expect(res.body.primary_email_address_id).toBe(second);

    const foreign = await h.call('PATCH', `/v1/users/${user.id}`, { key, body: { primary_email_address_id: other.email_addresses[0].id } });
    expectError(foreign, 422, 'VALIDATION_FAILED', { param: 'primary_email_address_id' });
    const bogus = await h.call('PATCH', `/v1/users/${user.id}`, { key, body: { primary_email_address_id: 'idn_nope' } });
    expectError(bogus, 422, 'VALIDATION_FAILED', { param: 'primary_email_address_id' });
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).body.primary_email_address_id).toBe(second);
  });

  it('validates the body like create', async () => {
    const user = await createOk({ email_address: uniqueEmail('pv') });
    const id = user.id;
    expectError(await h.call('PATCH', `/v1/users/${id}`, { key, body: { nickname: 'x' } }), 422, 'VALIDATION_FAILED', {
      param: 'nickname',
      reason: 'unknown_field',
    });
    expectError(await h.call('PATCH', `/v1/users/${id}`, { key, body: { first_name: 5 } }), 422, 'VALIDATION_FAILED', {
      param: 'first_name',
      reason: 'invalid_type',
    });
    expectError(await h.call('PATCH', `/v1/users/${id}`, { key, body: { password: 'short' } }), 422, 'VALIDATION_FAILED', {
      param: 'password',
    });
    expectError(
      await h.call('PATCH', `/v1/users/${id}`, { key, body: { password: user.email_addresses[0].email_address } }),
      422,
      'VALIDATION_FAILED',
      { param: 'password', reason: 'matches_identifier' },
    );
    expect((await h.call('GET', `/v1/users/${id}`, { key })).body).toEqual(user);
  });

  it('sets a password', async () => {
    const user = await createOk({ email_address: uniqueEmail('setpw') });
    const res = await h.call('PATCH', `/v1/users/${user.id}`, { key, body: { password: 'brand new password' } });
    expect(res.status).toBe(200);
    expect(res.body.password_enabled).toBe(true);
    expect(JSON.stringify(res.body)).not.toContain('brand new password');
    const stored = await storedPassword(h, user.id);
    expect(await verifyPassword('brand new password', stored.digest!, stored.hasher as PasswordHasher)).toBe(true);
  });
});

describe('DELETE /v1/users/:id', () => {
  it('deletes, then the user is gone', async () => {
    const email = uniqueEmail('del');
    const user = await createOk({ email_address: email, username: 'to_be_deleted' });
    const res = await h.call('DELETE', `/v1/users/${user.id}`, { key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'user', id: user.id, deleted: true });
    expectError(await h.call('GET', `/v1/users/${user.id}`, { key }), 404, 'NOT_FOUND');
    expectError(await h.call('DELETE', `/v1/users/${user.id}`, { key }), 404, 'NOT_FOUND');
    expectError(await h.call('PATCH', `/v1/users/${user.id}`, { key, body: { first_name: 'x' } }), 404, 'NOT_FOUND');
    // Its identifiers are free again.
    const again = await createOk({ email_address: email, username: 'to_be_deleted' });
    expect(again.id).not.toBe(user.id);
    const rows = await h.runtime.deps.db.select().from(emailAddresses).where(eq(emailAddresses.userId, user.id));
    expect(rows).toEqual([]);
  });
});

describe('ban and unban', () => {
  it('toggles banned, and is a no-op without a second event when already in that state', async () => {
    const user = await createOk({ email_address: uniqueEmail('ban') });
    expect(user.banned).toBe(false);
    const forUser = async (type: string) => (await eventsOf(instanceId, type)).filter((e) => e.data.id === user.id);

    // Unbanning a user who is not banned: no change, no event.
    const unbanFirst = await h.call('POST', `/v1/users/${user.id}/unban`, { key });
    expect(unbanFirst.status).toBe(200);
    expect(unbanFirst.body.banned).toBe(false);
    expect(await forUser('user.unbanned')).toHaveLength(0);

    const banned = await h.call('POST', `/v1/users/${user.id}/ban`, { key });
    expect(banned.status).toBe(200);
    expect(banned.body).toMatchObject({ id: user.id, banned: true });
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).body.banned).toBe(true);

    const again = await h.call('POST', `/v1/users/${user.id}/ban`, { key });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(banned.body);
    expect(await forUser('user.banned')).toHaveLength(1);

    const unbanned = await h.call('POST', `/v1/users/${user.id}/unban`, { key });
    expect(unbanned.status).toBe(200);
    expect(unbanned.body.banned).toBe(false);
    await h.call('POST', `/v1/users/${user.id}/unban`, { key });
    expect(await forUser('user.unbanned')).toHaveLength(1);
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).body.banned).toBe(false);
  });

  it('refuses a body on ban', async () => {
    const user = await createOk({ email_address: uniqueEmail('banbody') });
    expectError(await h.call('POST', `/v1/users/${user.id}/ban`, { key, body: { reason: 'spam' } }), 422, 'VALIDATION_FAILED', {
      param: 'reason',
      reason: 'unknown_field',
    });
    expect((await h.call('GET', `/v1/users/${user.id}`, { key })).body.banned).toBe(false);
  });
});

describe('GET /v1/users', () => {
  let k: string;
  const ids: Record<string, string> = {};
  beforeAll(async () => {
    // A fresh instance so the list holds exactly these users.
    ({ secret: k } = await h.createInstance());
    const make = async (name: string, body: Record<string, unknown>) => {
      const res = await h.call('POST', '/v1/users', { key: k, body });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      ids[name] = res.body.id;
    };
    await make('ada', {
      email_address: 'Ada.Lovelace@Example.com',
      first_name: 'Ada',
      last_name: 'Lovelace',
      username: 'ada_l',
      external_id: 'ext-ada',
    });
    await make('alan', {
      email_address: 'alan@turing.org',
      first_name: 'Alan',
      last_name: 'Turing',
      username: 'aturing',
      external_id: 'ext-alan',
    });
    await make('grace', {
      email_address: ['grace@navy.mil', 'g.hopper@example.com'],
      first_name: 'Grace',
      last_name: 'Hopper',
      external_id: 'ext-grace',
    });
    await make('linus', { username: 'Torvalds', first_name: 'Linus' });
    await make('percent', { email_address: 'odd.char_name@example.com', first_name: '100%' });
  });

  const list = async (qs: string) => {
    const res = await h.call('GET', `/v1/users${qs}`, { key: k });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { data: { id: string }[]; has_more: boolean; next_cursor: string | null };
  };
  const idsOf = (b: { data: { id: string }[] }) => b.data.map((u) => u.id);

  it('lists newest first in the cursor envelope', async () => {
    const body = await list('');
    expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_cursor']);
    expect(idsOf(body)).toEqual([ids.percent, ids.linus, ids.grace, ids.alan, ids.ada]);
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBeNull();
  });

  it('order_by=created_at lists oldest first; -created_at newest first', async () => {
    expect(idsOf(await list('?order_by=created_at'))).toEqual([ids.ada, ids.alan, ids.grace, ids.linus, ids.percent]);
    expect(idsOf(await list('?order_by=-created_at'))).toEqual([ids.percent, ids.linus, ids.grace, ids.alan, ids.ada]);
    const bad = await h.call('GET', '/v1/users?order_by=created', { key: k });
    expectError(bad, 422, 'VALIDATION_FAILED', { param: 'order_by' });
  });

  it('sorts by name and by last sign-in, paging by cursor without repeats', async () => {
    // Names compare as "first last username", case-folded: 100%, Ada, Alan, Grace, Linus.
    expect(idsOf(await list('?order_by=name'))).toEqual([ids.percent, ids.ada, ids.alan, ids.grace, ids.linus]);
    expect(idsOf(await list('?order_by=-name'))).toEqual([ids.linus, ids.grace, ids.alan, ids.ada, ids.percent]);
    const first = await list('?order_by=name&limit=2');
    const second = await list(`?order_by=name&limit=2&starting_after=${first.data[1]!.id}`);
    const third = await list(`?order_by=name&limit=2&starting_after=${second.data[1]!.id}`);
    expect([...idsOf(first), ...idsOf(second), ...idsOf(third)]).toEqual([ids.percent, ids.ada, ids.alan, ids.grace, ids.linus]);

    await h.runtime.deps.db.update(users).set({ lastSignInAt: 2_000 }).where(eq(users.id, ids.alan!));
    await h.runtime.deps.db.update(users).set({ lastSignInAt: 1_000 }).where(eq(users.id, ids.grace!));
    const recent = idsOf(await list('?order_by=-last_sign_in_at'));
    expect(recent.slice(0, 2)).toEqual([ids.alan, ids.grace]);
    const paged = await list('?order_by=-last_sign_in_at&limit=1');
    expect(idsOf(await list(`?order_by=-last_sign_in_at&limit=1&starting_after=${paged.data[0]!.id}`))).toEqual([ids.grace]);
  });

  it('filters by banned, locked, second factor, verified email and date ranges', async () => {
    await h.call('POST', `/v1/users/${ids.linus}/ban`, { key: k });
    expect(idsOf(await list('?banned=true'))).toEqual([ids.linus]);
    expect(idsOf(await list('?banned=false'))).not.toContain(ids.linus);
    await h.runtime.deps.db.update(users).set({ locked: true }).where(eq(users.id, ids.ada!));
    expect(idsOf(await list('?locked=true'))).toEqual([ids.ada]);
    expect(idsOf(await list('?has_mfa=true'))).toEqual([]);
    expect(idsOf(await list('?has_mfa=false')).sort()).toEqual(Object.values(ids).sort());
    // Linus has no email address at all; everyone else's was verified by the BAPI.
    expect(idsOf(await list('?email_verified=false'))).toEqual([ids.linus]);
    const grace = (await h.call('GET', `/v1/users/${ids.grace}`, { key: k })).body;
    const around = idsOf(await list(`?created_after=${grace.created_at}&created_before=${grace.created_at + 1}`));
    expect(around).toContain(ids.grace);
    expect(idsOf(await list(`?created_after=${grace.created_at + 1}`))).not.toContain(ids.grace);
    expect(idsOf(await list('?last_active_after=1500'))).toEqual([ids.alan]);
    expect(idsOf(await list('?last_active_after=500&last_active_before=1500'))).toEqual([ids.grace]);
    expectError(await h.call('GET', '/v1/users?banned=yes', { key: k }), 422, 'VALIDATION_FAILED', { param: 'banned' });
  });

  it('filters by email_address, case-insensitively, one or several', async () => {
    expect(idsOf(await list('?email_address=ada.lovelace@example.com'))).toEqual([ids.ada]);
    expect(idsOf(await list('?email_address=ADA.LOVELACE@EXAMPLE.COM'))).toEqual([ids.ada]);
    expect(idsOf(await list('?email_address=G.Hopper@example.com'))).toEqual([ids.grace]);
    expect(idsOf(await list('?email_address=alan@turing.org&email_address=grace@navy.mil'))).toEqual([ids.grace, ids.alan]);
    // Exact match, not a substring.
    expect(idsOf(await list('?email_address=turing.org'))).toEqual([]);
  });

  it('filters by external_id and username', async () => {
    expect(idsOf(await list('?external_id=ext-alan'))).toEqual([ids.alan]);
    expect(idsOf(await list('?external_id=ext-alan&external_id=ext-ada'))).toEqual([ids.alan, ids.ada]);
    expect(idsOf(await list('?external_id=EXT-ALAN'))).toEqual([]);
    expect(idsOf(await list('?username=torvalds'))).toEqual([ids.linus]);
    expect(idsOf(await list('?username=ADA_L&username=aturing'))).toEqual([ids.alan, ids.ada]);
    expect(idsOf(await list('?username=ada'))).toEqual([]);
  });

  it('query matches prefixes of names, usernames, addresses and their domains, case-insensitively', async () => {
    expect(idsOf(await list('?query=lovelace'))).toEqual([ids.ada]);
    expect(idsOf(await list('?query=GRACE'))).toEqual([ids.grace]);
    expect(idsOf(await list('?query=hopper'))).toEqual([ids.grace]);
    expect(idsOf(await list('?query=turing.o'))).toEqual([ids.alan]);
    expect(idsOf(await list('?query=torv'))).toEqual([ids.linus]);
    expect(idsOf(await list('?query=example.com'))).toEqual([ids.percent, ids.grace, ids.ada]);
    expect(idsOf(await list(`?query=${ids.alan}`))).toEqual([ids.alan]);
    expect(idsOf(await list('?query=nobody-matches-this'))).toEqual([]);
    expect(idsOf(await list('?query=ada%20LOVE'))).toEqual([ids.ada]);
    expect(idsOf(await list('?query=g.hopper@example.com'))).toEqual([ids.grace]);
    expect(idsOf(await list('?query=ext-gr'))).toEqual([ids.grace]);
    // A prefix, not any substring: the middle of a word does not match.
    expect(idsOf(await list('?query=velace'))).toEqual([]);
  });

  it('query treats % and _ literally', async () => {
    expect(idsOf(await list(`?query=${encodeURIComponent('100%')}`))).toEqual([ids.percent]);
    expect(idsOf(await list(`?query=${encodeURIComponent('odd.char_')}`))).toEqual([ids.percent]);
    expect(idsOf(await list(`?query=${encodeURIComponent('odd.cha_')}`))).toEqual([]);
  });

  it('combines filters', async () => {
    expect(idsOf(await list('?query=example&external_id=ext-ada&external_id=ext-grace'))).toEqual([ids.grace, ids.ada]);
    expect(idsOf(await list('?query=grace&username=ada_l'))).toEqual([]);
  });

  it('refuses an unknown query parameter', async () => {
    expectError(await h.call('GET', '/v1/users?sort=name', { key: k }), 422, 'VALIDATION_FAILED', {
      param: 'sort',
      reason: 'unknown_field',
    });
  });

  it('never lists another instance’s users', async () => {
    const body = await list('?query=example.com&limit=100');
    for (const u of body.data) expect(Object.values(ids)).toContain(u.id);
    const mine = await h.call('GET', '/v1/users?email_address=ada.lovelace@example.com', { key });
    expect(mine.body.data).toEqual([]);
  });
});

describe('events', () => {
  let k: string;
  let inst: string;
  beforeAll(async () => {
    ({ secret: k, instanceId: inst } = await h.createInstance());
  });

  const onlyEvent = async (type: string, userId: string) => {
    const rows = (await eventsOf(inst, type)).filter((e) => e.data.id === userId);
    expect(rows, type).toHaveLength(1);
    return rows[0]!;
  };

  it('writes user.created, user.updated, user.banned, user.unbanned and user.deleted with the full user', async () => {
    const t0 = h.clock.now();
    const created = await h.call('POST', '/v1/users', {
      key: k,
      body: { email_address: 'evt@example.com', first_name: 'Eve', password: 'eve is a long password' },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;

    const c = await onlyEvent('user.created', id);
    expect(c.id).toMatch(/^evt_[0-9A-HJKMNP-TV-Z]{26}$/);
    expect(c.instanceId).toBe(inst);
    expect(c.createdAt).toBe(t0);
    expect(c.data).toEqual(created.body);
    expect(JSON.stringify(c.data)).not.toMatch(/\$argon2|password_digest|eve is a long password/);

    h.clock.advance(1000);
    const updated = await h.call('PATCH', `/v1/users/${id}`, { key: k, body: { last_name: 'Adams', public_metadata: { a: 1 } } });
    expect(updated.status).toBe(200);
    const u = await onlyEvent('user.updated', id);
    expect(u.data).toEqual(updated.body);
    expect(u.data).toMatchObject({
      last_name: 'Adams',
      public_metadata: { a: 1 },
      email_addresses: [expect.objectContaining({ email_address: 'evt@example.com' })],
    });
    expect(u.createdAt).toBe(t0 + 1000);

    h.clock.advance(1000);
    const banned = await h.call('POST', `/v1/users/${id}/ban`, { key: k });
    expect((await onlyEvent('user.banned', id)).data).toEqual(banned.body);
    expect(banned.body.banned).toBe(true);

    h.clock.advance(1000);
    const unbanned = await h.call('POST', `/v1/users/${id}/unban`, { key: k });
    expect((await onlyEvent('user.unbanned', id)).data).toEqual(unbanned.body);

    h.clock.advance(1000);
    const before = await h.call('GET', `/v1/users/${id}`, { key: k });
    const deleted = await h.call('DELETE', `/v1/users/${id}`, { key: k });
    expect(deleted.status).toBe(200);
    const d = await onlyEvent('user.deleted', id);
    // The last full state of the user, marked deleted.
    expect(d.data).toMatchObject({ ...before.body, id, object: 'user' });
    expect(d.data.deleted).toBe(true);

    // In the order they happened.
    const order = (await eventsOf(inst)).filter((e) => e.data.id === id).map((e) => e.type);
    expect(order).toEqual(['user.created', 'user.updated', 'user.banned', 'user.unbanned', 'user.deleted']);
  });

  it('a refused create or update writes no event', async () => {
    const first = await h.call('POST', '/v1/users', { key: k, body: { email_address: 'dup-evt@example.com', username: 'dup_evt' } });
    expect(first.status).toBe(200);
    const before = await eventsOf(inst);

    expect((await h.call('POST', '/v1/users', { key: k, body: { email_address: 'DUP-EVT@example.com' } })).status).toBe(422);
    expect((await h.call('POST', '/v1/users', { key: k, body: { username: 'DUP_EVT' } })).status).toBe(422);
    expect((await h.call('POST', '/v1/users', { key: k, body: { email_address: 'bad' } })).status).toBe(422);
    const other = await h.call('POST', '/v1/users', { key: k, body: { username: 'other_evt' } });
    const patched = await h.call('PATCH', `/v1/users/${other.body.id}`, { key: k, body: { username: 'dup_evt' } });
    expect(patched.status).toBe(422);
    const badPrimary = await h.call('PATCH', `/v1/users/${other.body.id}`, {
      key: k,
      body: { primary_email_address_id: first.body.email_addresses[0].id },
    });
    expect(badPrimary.status).toBe(422);

    const after = await eventsOf(inst);
    // Only other_evt's user.created was added.
    expect(after.length).toBe(before.length + 1);
    expect(after.at(-1)).toMatchObject({ type: 'user.created', data: expect.objectContaining({ id: other.body.id }) });
    // No user row was written for the refused creates.
    const rows = await h.runtime.deps.db.select().from(users).where(eq(users.instanceId, inst));
    expect(rows.map((r) => r.username).filter((n) => n?.toLowerCase() === 'dup_evt')).toHaveLength(1);
  });

  it('GET /v1/events reports emitted types with counts and first/last times', async () => {
    const fresh = await h.createInstance();
    const empty = await h.call('GET', '/v1/events', { key: fresh.secret });
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({ object: 'list', data: [], has_more: false });

    const t0 = h.clock.now();
    const a = await h.call('POST', '/v1/users', { key: fresh.secret, body: { username: 'events_a' } });
    h.clock.advance(5000);
    const b = await h.call('POST', '/v1/users', { key: fresh.secret, body: { username: 'events_b' } });
    h.clock.advance(5000);
    await h.call('POST', `/v1/users/${a.body.id}/ban`, { key: fresh.secret });
    await h.call('POST', `/v1/users/${a.body.id}/ban`, { key: fresh.secret }); // no-op, no event
    h.clock.advance(1000);
    await h.call('DELETE', `/v1/users/${b.body.id}`, { key: fresh.secret });

    const res = await h.call('GET', '/v1/events', { key: fresh.secret });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'list',
      has_more: false,
      data: [
        { object: 'event_type', type: 'user.banned', count: 1, first_emitted_at: t0 + 10_000, last_emitted_at: t0 + 10_000 },
        { object: 'event_type', type: 'user.created', count: 2, first_emitted_at: t0, last_emitted_at: t0 + 5000 },
        { object: 'event_type', type: 'user.deleted', count: 1, first_emitted_at: t0 + 11_000, last_emitted_at: t0 + 11_000 },
      ],
    });

    // Another instance's events are not counted here.
    const others = await h.call('GET', '/v1/events', { key: k });
    expect(others.body.data.find((t: { type: string }) => t.type === 'user.created').count).toBeGreaterThan(2);
  });

  it('GET /v1/events requires events:read', async () => {
    const limited = await h.createKey(instanceId, 'users:write');
    expectError(await h.call('GET', '/v1/events', { key: limited.secret }), 403, 'SCOPE_MISSING', { required_scope: 'events:read' });
    const reader = await h.createKey(instanceId, 'events:read');
    expect((await h.call('GET', '/v1/events', { key: reader.secret })).status).toBe(200);
    expectError(await h.call('GET', '/v1/users', { key: reader.secret }), 403, 'SCOPE_MISSING', { required_scope: 'users:read' });
    expectError(await h.call('GET', '/v1/events'), 401, 'UNAUTHENTICATED');
  });
});

describe('audit', () => {
  it('PATCH, DELETE, ban and unban each write an entry naming the key and the user; a refused change none', async () => {
    const { secret, keyId } = await h.createInstance();
    const id = (await createOk({ email_address: 'audited@example.com' }, secret)).id;
    const call = (method: string, path: string, body?: unknown) => h.call(method, `/v1/users/${id}${path}`, { key: secret, body });
    expect((await call('PATCH', '', { first_name: 'Ada', public_metadata: { a: 1 } })).status).toBe(200);
    expect((await call('PATCH', '', { username: 'x' })).status).toBe(422);
    expect((await call('POST', '/ban')).status).toBe(200);
    expect((await call('POST', '/unban')).status).toBe(200);
    expect((await call('DELETE', '')).status).toBe(200);
    const log = await h.call('GET', `/v1/audit_logs?target=${id}`, { key: secret });
    const who = { actor: `key:${keyId}`, actor_kind: 'secret_key', target: id };
    expect(log.body.data).toEqual([
      expect.objectContaining({ ...who, action: 'user.deleted' }),
      expect.objectContaining({ ...who, action: 'user.unbanned' }),
      expect.objectContaining({ ...who, action: 'user.banned' }),
      expect.objectContaining({ ...who, action: 'user.updated', details: { fields: ['first_name', 'public_metadata'] } }),
      expect.objectContaining({ ...who, action: 'user.created' }),
    ]);
  });
});
