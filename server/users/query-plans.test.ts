import { and, desc, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { users } from '../db/schema';
import { sharedHarness } from '../testing/harness';
import { createTestUser } from '../testing/fapi-helpers';
import { explain as explainRaw, explainQuery } from '../testing/explain';
import { userFilters } from './users';
import { userByIdSql } from './statements';
import { SEARCH_CANDIDATES } from '../db/user-search';

/**
 * The hot user queries have an index for every filter GET /v1/users offers, and the planner
 * takes it on an instance of a few thousand users (sequential scans switched off, so a plan
 * without the index means no index can serve the filter).
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
let instanceId: string;
let template = '';
beforeAll(async () => {
  const i = await h.createInstance();
  instanceId = i.instanceId;
  for (let n = 0; n < 5; n++) {
    template = await createTestUser(h, i, {
      email_address: [`plan${n}@example.com`],
      phone_number: [`+1555010${n}00`],
      first_name: `Plan${n}`,
      username: `plan_${n}`,
    });
  }
  // Thousands of users, so the planner weighs the indexes as it would on a real instance.
  const db = h.runtime.deps.db;
  const copies = (table: string, key: string, changes: string) =>
    db.execute(
      sql.raw(
        `insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || ${changes})).* ` +
          `from ${table} t, generate_series(1, ${BULK}) g where t.${key} = '${template}'`,
      ),
    );
  await copies(
    'users',
    'id',
    `jsonb_build_object('id', 'user_bulk' || g, 'username', 'bulk' || g, 'username_key', 'bulk' || g, 'external_id', 'ext_bulk' || g, 'first_name', 'Bulk' || g, 'last_name', 'Person' || g)`,
  );
  await copies(
    'email_addresses',
    'user_id',
    `jsonb_build_object('id', 'idn_bulk' || g, 'user_id', 'user_bulk' || g, 'email_address', 'bulk' || g || '@example.org', 'email_key', 'bulk' || g || '@example.org')`,
  );
  await copies(
    'phone_numbers',
    'user_id',
    `jsonb_build_object('id', 'idn_pbulk' || g, 'user_id', 'user_bulk' || g, 'phone_number', '+1666' || lpad(g::text, 7, '0'))`,
  );
  for (const table of ['users', 'email_addresses', 'phone_numbers']) await db.execute(sql.raw(`analyze ${table}`));
}, 60_000);
const BULK = 3000;

function planOf(q: Parameters<typeof userFilters>[2]): Promise<string> {
  const db = h.runtime.deps.db;
  return explainQuery(
    db,
    db
      .select({ id: users.id })
      .from(users)
      .where(and(...userFilters(db, instanceId, q)))
      .orderBy(desc(users.id))
      .limit(21)
      .toSQL(),
  );
}
const explain = (text: string) => explainRaw(h.runtime.deps.db, text);

describe('indexes for the user list filters (EXPLAIN)', () => {
  it('no filter: the (instance_id, id) index, in id order', async () => {
    expect(await planOf({})).toMatch(/users_instance_id_idx/);
  });
  it('email_address: the (instance_id, email_key) index', async () => {
    expect(await planOf({ email_address: ['plan1@example.com'] })).toMatch(/email_addresses_uq/);
  });
  it('external_id and username: their indexes', async () => {
    expect(await planOf({ external_id: ['ext_1'] })).toMatch(/users_external_id_idx/);
    expect(await planOf({ username: ['plan_1'] })).toMatch(/users_username_uq/);
  });
  it('query: one union of bounded prefix ranges, each on its own index, no sequential scan', async () => {
    const plan = await planOf({ query: 'plan3' });
    expect(plan).not.toMatch(/Seq Scan/);
    for (const index of [
      'users_search_first_idx',
      'users_search_last_idx',
      'users_search_username_idx',
      'users_search_external_idx',
      'email_addresses_search_idx',
      'email_addresses_domain_idx',
    ]) {
      expect(plan).toContain(index);
    }
    // Every field is cut at its first matches (SEARCH_CANDIDATES), so a one-letter query on a big instance stays bounded.
    expect(plan.match(/Limit/g)?.length).toBeGreaterThanOrEqual(7);
    const phone = await planOf({ query: '+1 555 010' });
    expect(phone).not.toMatch(/Seq Scan/);
    // A range on the C-collated search index, or on the unique index where the database's collation is C already.
    expect(phone).toMatch(/Index Scan using phone_numbers_(search_idx|uq)[^\n]*\n\s*Index Cond: [^\n]*phone_number[^\n]*>= '\+1555010'/);
    expect(await planOf({ query: '5550102' })).not.toMatch(/Seq Scan/);
    // With its +, a number is a prefix only: no trigram search over every number sharing its first digits.
    expect(await planOf({ query: '+1 555 0102' })).not.toMatch(/~~ '%/);
    // A run of digits inside a number: the trigram index, which the planner takes once the table is large.
    expect(await explain(`select user_id from phone_numbers where phone_number like '%5550102%'`)).toMatch(/phone_numbers_trgm_idx/);
    expect(await planOf({ query: 'plan3 person' })).not.toMatch(/Seq Scan/);
  });
  it('the console filters: banned and locked (partial indexes), date ranges, no sequential scan', async () => {
    expect(await planOf({ banned: true })).toMatch(/users_banned_idx/);
    expect(await planOf({ locked: true })).toMatch(/users_locked_idx/);
    const created = await explain(`select id from users where instance_id = '${instanceId}' and created_at >= 1 and created_at < 2`);
    expect(created).toMatch(/users_created_at_idx/);
    const active = await explain(
      `select id from users where instance_id = '${instanceId}' and last_sign_in_at >= 1 and last_sign_in_at < 2`,
    );
    expect(active).toMatch(/users_last_sign_in_idx/);
    for (const q of [{ has_mfa: true }, { email_verified: false }, { created_after: 1 }]) expect(await planOf(q)).not.toMatch(/Seq Scan/);
  });
  it('the search still finds by each field', async () => {
    const ids = async (query: string) => {
      const db = h.runtime.deps.db;
      return (
        await db
          .select({ id: users.id })
          .from(users)
          .where(and(...userFilters(db, instanceId, { query })))
      ).length;
    };
    expect(await ids('plan3@example')).toBe(1);
    expect(await ids('plan3@example.com')).toBe(1);
    expect(await ids('example.org')).toBe(Math.min(BULK, SEARCH_CANDIDATES));
    expect(await ids('bulk1717 person1717')).toBe(1);
    expect(await ids('555010200')).toBe(1);
    expect(await ids('+1 (555) 010-2')).toBe(1);
    // With a +, the digits are the number's start: the national part alone is found without it.
    expect(await ids('+555010200')).toBe(0);
    expect(await ids('Plan')).toBe(5);
    // 3,000 users match: each field gives its first SEARCH_CANDIDATES, the union a bounded set.
    const many = await ids('bulk');
    expect(many).toBeGreaterThanOrEqual(SEARCH_CANDIDATES);
    expect(many).toBeLessThan(BULK);
    expect(await ids('nobody-like-this')).toBe(0);
  });
});

describe('the read of one user (GET /v1/users/:id, EXPLAIN)', () => {
  it('the user by primary key, its addresses, numbers and second factor by their user indexes, no sequential scan', async () => {
    const plan = await explainQuery(h.runtime.deps.db, new PgDialect().sqlToQuery(userByIdSql({ id: template, instanceId })));
    expect(plan).not.toMatch(/Seq Scan/);
    expect(plan).toMatch(/Index Scan using users_(pkey|instance_id_idx) on users/);
    expect(plan).toContain('email_addresses_user_idx');
    expect(plan).toContain('phone_numbers_user_idx');
    expect(plan).toContain('totp_factors_pkey');
  });
});
