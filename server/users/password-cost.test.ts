import argon2 from 'argon2';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { PasswordPool } from './password-pool';
import { argon2Params, needsRehash, OWASP_ARGON2_COST } from '../crypto/passwords';
import { eq } from 'drizzle-orm';
import { users } from '../db/schema';
import { browserOf } from '../testing/auth-flows';
import { storedPassword } from '../testing/fapi-helpers';
import { sharedHarness, sharedInstance } from '../testing/harness';

describe('argon2id cost as configuration', () => {
  it("defaults to OWASP's baseline and reads PASSWORD_ARGON2_*; out-of-range values name the variable", () => {
    const d = loadConfig({});
    expect([d.PASSWORD_ARGON2_MEMORY_KIB, d.PASSWORD_ARGON2_TIME, d.PASSWORD_ARGON2_PARALLELISM]).toEqual([19456, 2, 1]);
    const c = loadConfig({ PASSWORD_ARGON2_MEMORY_KIB: '47104', PASSWORD_ARGON2_TIME: '1', PASSWORD_ARGON2_PARALLELISM: '2' });
    expect([c.PASSWORD_ARGON2_MEMORY_KIB, c.PASSWORD_ARGON2_TIME, c.PASSWORD_ARGON2_PARALLELISM]).toEqual([47104, 1, 2]);
    expect(() => loadConfig({ PASSWORD_ARGON2_MEMORY_KIB: '1024' })).toThrow(/PASSWORD_ARGON2_MEMORY_KIB/);
    expect(() => loadConfig({ PASSWORD_ARGON2_TIME: '0' })).toThrow(/PASSWORD_ARGON2_TIME/);
  });

  it('the pool hashes at the configured cost and asks for a rehash of any other', async () => {
    const cost = { memoryCost: 8192, timeCost: 1, parallelism: 1 };
    const pool = new PasswordPool({ threads: 1, argon2: cost });
    try {
      const digest = await pool.hash('a passphrase');
      expect(argon2Params(digest)).toEqual({ m: 8192, t: 1, p: 1 });
      expect(await pool.verify('a passphrase', digest, 'argon2id')).toBe(true);
      expect(pool.needsRehash('argon2id', digest)).toBe(false);
      const owasp = await argon2.hash('a passphrase', { type: argon2.argon2id, ...OWASP_ARGON2_COST });
      expect(pool.needsRehash('argon2id', owasp)).toBe(true);
      expect(needsRehash('argon2id', owasp, OWASP_ARGON2_COST)).toBe(false);
      // Other hashers always move to argon2id; an argon2i digest too, even at the same cost.
      expect(pool.needsRehash('bcrypt', '$2b$04$abcdefghijklmnopqrstuu5Y1FvYJx9M6cU0i3m0Rmz8J2bE4r6Sa')).toBe(true);
      expect(pool.needsRehash('argon2i', digest.replace('$argon2id$', '$argon2i$'))).toBe(true);
    } finally {
      await pool.close();
    }
  });
});

describe('a stored digest of another cost is rehashed at the next successful sign-in', () => {
  const h = sharedHarness();
  const A = sharedInstance(h);
  const PASSWORD = 'an old cost passphrase';

  it('to the configured cost; a wrong password leaves it as it is', async () => {
    const email = 'rehash@example.com';
    const userId = (await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [email], password: PASSWORD } })).body
      .id as string;
    // As a digest made before the cost was configuration: argon2's defaults (m=64 MiB, t=3, p=4).
    const old = await argon2.hash(PASSWORD, { type: argon2.argon2id, memoryCost: 65536, timeCost: 3, parallelism: 4 });
    await h.runtime.deps.db.update(users).set({ passwordDigest: old, passwordHasher: 'argon2id' }).where(eq(users.id, userId));
    const b = browserOf(h, A);
    const signIn = (password: string) =>
      b.call('POST', '/v1/client/sign_ins', { body: { identifier: email, strategy: 'password', password } });

    expect((await signIn('not the passphrase')).status).toBe(422);
    expect((await storedPassword(h, userId)).digest).toBe(old);

    const ok = await signIn(PASSWORD);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.response.status).toBe('complete');
    const now = await storedPassword(h, userId);
    expect(now.hasher).toBe('argon2id');
    expect(now.digest).toMatch(/^\$argon2id\$v=19\$m=19456,p=1,t=2\$/);
    expect(await argon2.verify(now.digest!, PASSWORD)).toBe(true);
    // Signing in again with the rehashed digest still works and leaves it alone.
    expect((await signIn(PASSWORD)).status).toBe(200);
    expect((await storedPassword(h, userId)).digest).toBe(now.digest);
  });
});
