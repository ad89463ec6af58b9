import argon2 from 'argon2';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config';
import { PasswordPool } from './password-pool';
import { argon2Params, needsRehash, OWASP_ARGON2_COST } from './passwords';

describe('argon2id cost as configuration', () => {
  it('defaults to OWASP\'s baseline and reads PASSWORD_ARGON2_*; out-of-range values name the variable', () => {
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
