import { describe, expect, it } from 'vitest';
import { browserOf } from '../testing/auth-flows';
import { sharedHarness, sharedInstance } from '../testing/harness';

/**
 * What a password sign-in and a sign-up cost in statements (PostgreSQL's statement counter,
 * the `latchkey_database_statements_total` the passwords bench reads; BEGIN and COMMIT not
 * counted): a one-request sign-in sends three (the attempt with the user's digest, the user
 * locked for the rules, every write at once), a sign-up two (the address check, the client
 * and the attempt at once). The least of a few tries: a background statement may land in one.
 */
const h = sharedHarness();
const A = sharedInstance(h);
const PASSWORD = 'a long passphrase';
const sent = () => h.runtime.database.stats!().statements;

async function statementsOf(run: () => Promise<void>, tries = 3) {
  let least = Infinity;
  for (let t = 0; t < tries; t++) {
    const before = sent();
    await run();
    least = Math.min(least, sent() - before);
  }
  return least;
}

describe.skipIf(!process.env.DATABASE_URL)('statements sent (PostgreSQL)', () => {
  it('a one-request password sign-in sends 3, a sign-up with a password 2', async () => {
    const email = 'counted@example.com';
    expect((await h.call('POST', '/v1/users', { key: A.secret, body: { email_address: [email], password: PASSWORD } })).status).toBe(200);
    const signIn = async () => {
      const res = await browserOf(h, A).call('POST', '/v1/client/sign_ins', { body: { identifier: email, password: PASSWORD } });
      expect(res.status).toBe(200);
      expect(res.body.response.status).toBe('complete');
    };
    await signIn(); // per-node caches (the instance, its SSO domains) filled
    expect(await statementsOf(signIn)).toBe(3);
    let n = 0;
    const signUp = async () => {
      const res = await browserOf(h, A).call('POST', '/v1/client/sign_ups', {
        body: { email_address: `new${++n}@example.com`, password: 'another long passphrase' },
      });
      expect(res.status).toBe(200);
      expect(res.body.response.status).toBe('missing_requirements');
    };
    await signUp();
    expect(await statementsOf(signUp)).toBe(2);
  });
});
