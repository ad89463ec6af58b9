import { PgDialect } from 'drizzle-orm/pg-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { sqlOf, type Bound } from '../db/prepared';
import { explainQuery } from '../testing/explain';
import { mintNewUserSession } from '../testing/fapi-helpers';
import { sharedHarness, type TestInstance } from '../testing/harness';
import { emailTakenSql, insertAttemptSql, storedPasswordSql, userForSignInSql } from './statements';

/**
 * The statements of a password sign-in and sign-up that find a row by a key use their
 * indexes: planned with sequential scans switched off, none of them scans a table.
 */
const h = sharedHarness();
let i: TestInstance;
let userId: string;
beforeAll(async () => {
  i = await h.createInstance();
  userId = (await mintNewUserSession(h, i.secret)).user_id;
}, 60_000);

/** The user by id through an index: on a test's few rows the planner may take one that leads with instance_id and filter by id. */
const USERS_BY_INDEX = /Index (Only )?Scan using users_\w+ on users/;
const plan = (b: Bound) => explainQuery(h.runtime.deps.db, new PgDialect().sqlToQuery(sqlOf(b)));
const attempt = { id: 'sia_plan', status: 'needs_first_factor' as const, abandonAt: 1, createdAt: 1, updatedAt: 1 };

describe('sign-in and sign-up statements use their indexes (EXPLAIN)', () => {
  it('the attempt and the stored password find the user by identifier through the unique indexes', async () => {
    const row = { instanceId: i.instanceId, clientId: 'client_plan', identifier: 'a@b.example' };
    for (const [kind, index] of [
      ['email', /email_addresses_(uq|search_idx)/],
      ['phone', /phone_numbers_(uq|search_idx)/],
      ['username', USERS_BY_INDEX],
    ] as const) {
      const insert = await plan(insertAttemptSql(attempt, { ...row, kind, key: 'a@b.example' }));
      expect(insert).not.toMatch(/Seq Scan/);
      expect(insert).toMatch(index);
      const stored = await plan(storedPasswordSql(i.instanceId, kind, 'a@b.example'));
      expect(stored).not.toMatch(/Seq Scan/);
      expect(stored).toMatch(index);
      expect(stored).toMatch(USERS_BY_INDEX);
    }
  });

  it('the user every rule needs: by index, with the second factor and passkey by user', async () => {
    const read = await plan(userForSignInSql(i.instanceId, userId));
    expect(read).not.toMatch(/Seq Scan/);
    expect(read).toMatch(USERS_BY_INDEX);
    expect(read).toContain('totp_factors_pkey');
    expect(read).toContain('passkeys_user_idx');
  });

  it('a sign-up’s address check: by the unique index', async () => {
    const taken = await plan(emailTakenSql(i.instanceId, 'a@b.example'));
    expect(taken).not.toMatch(/Seq Scan/);
    expect(taken).toMatch(/email_addresses_(uq|search_idx)/);
  });
});
