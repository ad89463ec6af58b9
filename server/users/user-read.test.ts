import { eq } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { emailAddresses, phoneNumbers, totpFactors, users } from '../db/schema';
import { newId } from '../db/ids';
import { sharedHarness } from '../testing/harness';

/**
 * The read of one user (GET /v1/users/:id and every domain read of one user) is a hand-written
 * statement (users/statements.ts `userByIdSql`); the lists still read users through the
 * relational query. Both give one view: for a user with every kind of identifier and state,
 * the user answered by id is, field for field and in the same key order, the one the list
 * answers.
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
let key: string;
let instanceId: string;
beforeAll(async () => {
  ({ secret: key, instanceId } = await h.createInstance());
});

async function created(body: Record<string, unknown>): Promise<string> {
  const res = await h.call('POST', '/v1/users', { key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body as { id: string }).id;
}

/** The user as GET /v1/users/:id answers it and as GET /v1/users?username= lists it, as text. */
async function bothViews(id: string, username: string) {
  const one = await h.call('GET', `/v1/users/${id}`, { key });
  expect(one.status).toBe(200);
  // Text, so the fields' order counts too.
  const list = await h.call('GET', `/v1/users?username=${encodeURIComponent(username)}`, { key });
  expect(list.status).toBe(200);
  const listed = (list.body as { data: { id: string }[] }).data;
  expect(listed.map((u) => u.id)).toEqual([id]);
  return { byId: JSON.stringify(one.body), listed: JSON.stringify(listed[0]) };
}

describe('the user read by id answers the view the list answers', () => {
  it('a user with every kind of identifier, a second factor, a lockout, an image and metadata', async () => {
    const id = await created({
      email_address: ['Every.One@Example.com', 'second.every@example.com'],
      phone_number: ['+14155550181', '+14155550182'],
      username: 'every_kind',
      first_name: 'Évery',
      last_name: 'Kind',
      external_id: 'ext-every-kind',
      password: 'a long and unguessable passphrase 81',
      skip_password_checks: true,
      locale: 'fr-FR',
      public_metadata: { plan: 'pro', nested: { a: [1, 2, { b: null }] }, big: 12345678901234 },
      private_metadata: { stripe: 'cus_81', ü: 'ß' },
      unsafe_metadata: { theme: 'dark', on: true },
    });
    const db = h.runtime.deps.db;
    const now = h.clock.now();
    // Identifiers not verified, one without a strategy, added later (ids after the first ones).
    await db.insert(emailAddresses).values({
      id: newId('idn'),
      instanceId,
      userId: id,
      emailAddress: 'Pending.Every@example.com',
      emailKey: 'pending.every@example.com',
      verificationStatus: 'unverified',
      verificationStrategy: null,
      createdAt: now + 1,
      updatedAt: now + 2,
    });
    await db.insert(phoneNumbers).values({
      id: newId('idn'),
      instanceId,
      userId: id,
      phoneNumber: '+14155550189',
      verificationStatus: 'unverified',
      verificationStrategy: 'phone_code',
      createdAt: now + 3,
      updatedAt: now + 4,
    });
    await db.insert(totpFactors).values({
      userId: id,
      instanceId,
      secretEncrypted: 'not-a-real-secret',
      status: 'verified',
      createdAt: now,
      updatedAt: now,
      verifiedAt: now,
    });
    await db
      .update(users)
      .set({
        locked: true,
        lockedUntil: now + 60_000,
        lastSignInAt: now - 5_000,
        imageUrl: 'https://img.example.com/u/every.png',
        sessionsVersion: 7,
        updatedAt: now + 9,
      })
      .where(eq(users.id, id));

    const { byId, listed } = await bothViews(id, 'every_kind');
    expect(byId).toBe(listed);
    const view = JSON.parse(byId) as Record<string, unknown> & {
      email_addresses: { email_address: string; verification: unknown }[];
      phone_numbers: { phone_number: string }[];
    };
    expect(view).toMatchObject({
      two_factor_enabled: true,
      password_enabled: true,
      locked: true,
      locked_until: now + 60_000,
      last_sign_in_at: now - 5_000,
      sessions_version: 7,
      has_image: true,
      locale: 'fr-FR',
      public_metadata: { big: 12345678901234 },
    });
    expect(view.email_addresses.map((e) => e.email_address)).toEqual([
      'Every.One@Example.com',
      'second.every@example.com',
      'Pending.Every@example.com',
    ]);
    expect(view.email_addresses[2]!.verification).toEqual({ status: 'unverified', strategy: null });
    expect(view.phone_numbers.map((p) => p.phone_number)).toEqual(['+14155550181', '+14155550182', '+14155550189']);
  });

  it('a user with a username alone: no identifiers, no second factor, a lockout that has ended', async () => {
    const id = await created({ username: 'only_a_name' });
    await h.runtime.deps.db
      .update(users)
      .set({ locked: true, lockedUntil: h.clock.now() - 1, banned: true })
      .where(eq(users.id, id));
    const { byId, listed } = await bothViews(id, 'only_a_name');
    expect(byId).toBe(listed);
    expect(JSON.parse(byId)).toMatchObject({
      email_addresses: [],
      phone_numbers: [],
      two_factor_enabled: false,
      password_enabled: false,
      locked: false,
      locked_until: null,
      banned: true,
      image_url: '',
      has_image: false,
    });
  });
});
