import { describe, expect, it } from 'vitest';
import { externalAccounts } from '../db/schema';
import { codeSentTo, eventsDuring, instanceWith } from '../testing/auth-flows';
import { expectError } from '../testing/expect';
import { createTestUser, signedInClient, storedPassword } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';

const h = sharedHarness();
const A = sharedInstance(h);

let n = 0;
/** A user with a password and a verified primary address, signed in on a fresh browser. */
async function signedInUser(i = A, body: Record<string, unknown> = { password: 'an old passphrase 1' }) {
  const email = `acct${++n}@example.com`;
  const userId = await createTestUser(h, i, { email_address: [email], ...body });
  return { userId, email, ...(await signedInClient(h, i, userId)) };
}

describe('own email addresses on the FAPI', () => {
  it('adds an address unverified, verifies it with the emailed code, makes it primary and removes the old one', async () => {
    const { b, userId, email } = await signedInUser();
    const address = `second${n}@example.com`;
    const { result: added, events } = await eventsDuring(h, A.instanceId, () =>
      b.call('POST', '/v1/me/email_addresses', { body: { email_address: address } }),
    );
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ object: 'email_address', email_address: address, verification: { status: 'unverified' } });
    expect(events.map((e) => e.type)).toEqual(['user.updated']);
    const id = added.body.id as string;

    // Unverified: it cannot become primary yet.
    expectError(await b.call('PATCH', '/v1/me', { body: { primary_email_address_id: id } }), 422, 'VALIDATION_FAILED', {
      param: 'primary_email_address_id',
      reason: 'unverified',
    });

    const prepared = await b.call('POST', `/v1/me/email_addresses/${id}/prepare_verification`, { body: { strategy: 'email_code' } });
    expect(prepared.status).toBe(200);
    expect(prepared.body.verification).toMatchObject({ object: 'verification', strategy: 'email_code', status: 'unverified' });
    const code = await codeSentTo(h, address);
    expectError(
      await b.call('POST', `/v1/me/email_addresses/${id}/attempt_verification`, {
        body: { code: code === '000000' ? '111111' : '000000' },
      }),
      422,
      'CODE_INCORRECT',
    );
    const verified = await b.call('POST', `/v1/me/email_addresses/${id}/attempt_verification`, { body: { code } });
    expect(verified.status).toBe(200);
    expect(verified.body.verification).toMatchObject({ status: 'verified', strategy: 'email_code' });

    const primary = await b.call('PATCH', '/v1/me', { body: { primary_email_address_id: id } });
    expect(primary.status).toBe(200);
    expect(primary.body.primary_email_address_id).toBe(id);

    const old = primary.body.email_addresses.find((e: { email_address: string }) => e.email_address === email).id as string;
    expectError(await b.call('DELETE', `/v1/me/email_addresses/${id}`), 409, 'CONFLICT', { reason: 'primary_identifier' });
    const removed = await b.call('DELETE', `/v1/me/email_addresses/${old}`);
    expect(removed.body).toEqual({ object: 'email_address', id: old, deleted: true });
    const user = await h.call('GET', `/v1/users/${userId}`, { key: A.secret });
    expect(user.body.email_addresses.map((e: { email_address: string }) => e.email_address)).toEqual([address]);
  });

  it('refuses an address someone holds, another user’s address id, and a second code for a verified one', async () => {
    const { b, email } = await signedInUser();
    const other = await signedInUser();
    expectError(
      await b.call('POST', '/v1/me/email_addresses', { body: { email_address: other.email.toUpperCase() } }),
      422,
      'VALIDATION_FAILED',
      { param: 'email_address', reason: 'taken' },
    );
    expectError(await b.call('POST', '/v1/me/email_addresses', { body: { email_address: 'not an address' } }), 422, 'VALIDATION_FAILED', {
      param: 'email_address',
    });
    const theirs = (await other.b.call('GET', '/v1/me')).body.email_addresses[0].id as string;
    expectError(await b.call('DELETE', `/v1/me/email_addresses/${theirs}`), 404, 'NOT_FOUND');
    expectError(await b.call('POST', `/v1/me/email_addresses/${theirs}/prepare_verification`, { body: {} }), 404, 'NOT_FOUND');
    const mine = (await b.call('GET', '/v1/me')).body.email_addresses.find((e: { email_address: string }) => e.email_address === email)
      .id as string;
    expectError(await b.call('POST', `/v1/me/email_addresses/${mine}/prepare_verification`, { body: {} }), 409, 'CONFLICT', {
      reason: 'already_verified',
    });
  });

  it('needs a signed-in session', async () => {
    const anonymous = (await signedInUser()).b;
    await anonymous.call('DELETE', '/v1/client/sessions');
    expect((await anonymous.call('POST', '/v1/me/email_addresses', { body: { email_address: 'x@example.com' } })).status).toBe(401);
  });
});

describe('POST /v1/me/change_password', () => {
  it('with the current password: the new one works, the old one does not, other sessions end', async () => {
    const { b, userId } = await signedInUser();
    const elsewhere = await signedInClient(h, A, userId);
    const before = await storedPassword(h, userId);

    expectError(
      await b.call('POST', '/v1/me/change_password', {
        body: { current_password: 'not it at all', new_password: 'a brand new passphrase 2' },
      }),
      422,
      'VALIDATION_FAILED',
      { param: 'current_password', reason: 'incorrect_password' },
    );
    expectError(
      await b.call('POST', '/v1/me/change_password', { body: { new_password: 'a brand new passphrase 2' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'current_password', reason: 'required' },
    );
    expectError(
      await b.call('POST', '/v1/me/change_password', { body: { current_password: 'an old passphrase 1', new_password: 'short' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'password', reason: 'too_short' },
    );
    expect((await storedPassword(h, userId)).digest).toBe(before.digest);

    const changed = await b.call('POST', '/v1/me/change_password', {
      body: { current_password: 'an old passphrase 1', new_password: 'a brand new passphrase 2' },
    });
    expect(changed.status).toBe(200);
    expect(changed.body).toMatchObject({ id: userId, password_enabled: true });
    expect((await storedPassword(h, userId)).digest).not.toBe(before.digest);

    // This browser stays signed in; the other one was signed out.
    expect((await b.call('GET', '/v1/me')).status).toBe(200);
    expect((await elsewhere.b.call('GET', '/v1/me')).status).toBe(401);
    const stored = await storedPassword(h, userId);
    expect(await h.runtime.deps.passwords.verify('a brand new passphrase 2', stored.digest!, 'argon2id')).toBe(true);
    expect(await h.runtime.deps.passwords.verify('an old passphrase 1', stored.digest!, 'argon2id')).toBe(false);
    const audit = await h.call('GET', `/v1/audit_logs?action=user.password_changed`, { key: A.secret });
    expect(audit.body.data.map((e: { target: string }) => e.target)).toContain(userId);
  });

  it('with a code emailed to the primary address, also for an account without a password', async () => {
    const { b, userId, email } = await signedInUser(A, {});
    expectError(
      await b.call('POST', '/v1/me/change_password', { body: { new_password: 'a first passphrase 3' } }),
      422,
      'VALIDATION_FAILED',
      { param: 'code', reason: 'required' },
    );
    const sent = await b.call('POST', '/v1/me/change_password/prepare', { body: {} });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ object: 'verification', strategy: 'email_code' });
    const code = await codeSentTo(h, email);
    const changed = await b.call('POST', '/v1/me/change_password', {
      body: { code, new_password: 'a first passphrase 3', sign_out_of_other_sessions: false },
    });
    expect(changed.status).toBe(200);
    expect(changed.body.password_enabled).toBe(true);
    // The code is spent.
    expectError(
      await b.call('POST', '/v1/me/change_password', { body: { code, new_password: 'another passphrase 4' } }),
      422,
      'CODE_EXPIRED',
    );
    expect((await storedPassword(h, userId)).digest).toBeTruthy();
  });
});

describe('DELETE /v1/me', () => {
  it('deletes the account when the instance allows it (the default), and says so in the environment', async () => {
    const { b, userId } = await signedInUser();
    expect((await b.call('GET', '/v1/environment')).body.user_settings.actions).toEqual({ delete_self: true, create_organization: true });
    const { result, events } = await eventsDuring(h, A.instanceId, () => b.call('DELETE', '/v1/me'));
    expect(result.body).toEqual({ object: 'user', id: userId, deleted: true });
    expect(events.map((e) => e.type)).toContain('user.deleted');
    expectError(await h.call('GET', `/v1/users/${userId}`, { key: A.secret }), 404, 'NOT_FOUND');
  });

  it('is refused when delete_self_enabled is off', async () => {
    const I = await instanceWith(h, { delete_self_enabled: false });
    const { b, userId } = await signedInUser(I);
    expect((await b.call('GET', '/v1/environment')).body.user_settings.actions).toEqual({ delete_self: false, create_organization: true });
    expectError(await b.call('DELETE', '/v1/me'), 403, 'FORBIDDEN', { reason: 'delete_self_disabled' });
    expect((await h.call('GET', `/v1/users/${userId}`, { key: I.secret })).status).toBe(200);
  });
});

describe('connected accounts', () => {
  it('lists the social accounts a user signed in with and disconnects one; another user’s is 404', async () => {
    const { b, userId, email } = await signedInUser();
    const other = await signedInUser();
    // The row a social sign-in leaves behind when it links the account by verified email.
    const now = h.clock.now();
    const link = (id: string, user: string) =>
      h.runtime.deps.db.insert(externalAccounts).values({
        id,
        instanceId: A.instanceId,
        userId: user,
        provider: 'acme',
        providerUserId: `sub-${id}`,
        email,
        emailVerified: true,
        createdAt: now,
        updatedAt: now,
      });
    await link(`eac_mine${n}`, userId);
    await link(`eac_theirs${n}`, other.userId);

    const listed = await b.call('GET', '/v1/me/connected_accounts');
    expect(listed.status).toBe(200);
    expect(listed.body.data).toEqual([
      expect.objectContaining({
        object: 'connected_account',
        id: `eac_mine${n}`,
        kind: 'oauth',
        strategy: 'oauth_acme',
        email_address: email,
        removable: true,
      }),
    ]);
    expectError(await b.call('DELETE', `/v1/me/connected_accounts/eac_theirs${n}`), 404, 'NOT_FOUND');
    const { result, events } = await eventsDuring(h, A.instanceId, () => b.call('DELETE', `/v1/me/connected_accounts/eac_mine${n}`));
    expect(result.body).toEqual({ object: 'connected_account', id: `eac_mine${n}`, deleted: true });
    expect(events.map((e) => e.type)).toEqual(['user.updated']);
    expect((await b.call('GET', '/v1/me/connected_accounts')).body.data).toEqual([]);
    expect((await other.b.call('GET', '/v1/me/connected_accounts')).body.data).toHaveLength(1);
  });
});

describe('own phone numbers on the FAPI', () => {
  it('adds a number, verifies it with the code sent by SMS, makes it primary; the primary one stays', async () => {
    const { b, userId } = await signedInUser();
    const phone = `+1415555${String(1000 + n).slice(-4)}`;
    const added = await b.call('POST', '/v1/me/phone_numbers', { body: { phone_number: phone } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ object: 'phone_number', phone_number: phone, verification: { status: 'unverified' } });
    const id = added.body.id as string;
    expectError(await b.call('POST', '/v1/me/phone_numbers', { body: { phone_number: '0123' } }), 422, 'VALIDATION_FAILED', {
      param: 'phone_number',
    });
    expectError(await b.call('PATCH', '/v1/me', { body: { primary_phone_number_id: id } }), 422, 'VALIDATION_FAILED', {
      param: 'primary_phone_number_id',
      reason: 'unverified',
    });

    const prepared = await b.call('POST', `/v1/me/phone_numbers/${id}/prepare_verification`, { body: { strategy: 'phone_code' } });
    expect(prepared.status).toBe(200);
    expect(prepared.body.verification).toMatchObject({ strategy: 'phone_code', status: 'unverified' });
    const sms = await h.call('GET', `/v1/sms?to=${encodeURIComponent(phone)}`, { key: A.secret });
    const code = /(\d{6})/.exec(sms.body.data[0].body as string)![1]!;
    const verified = await b.call('POST', `/v1/me/phone_numbers/${id}/attempt_verification`, { body: { code } });
    expect(verified.body.verification).toMatchObject({ status: 'verified', strategy: 'phone_code' });
    expect((await b.call('PATCH', '/v1/me', { body: { primary_phone_number_id: id } })).body.primary_phone_number_id).toBe(id);
    expectError(await b.call('DELETE', `/v1/me/phone_numbers/${id}`), 409, 'CONFLICT', { reason: 'primary_identifier' });
    expect((await h.call('GET', `/v1/users/${userId}`, { key: A.secret })).body.phone_numbers).toMatchObject([
      { id, verification: { status: 'verified' } },
    ]);
  });
});
