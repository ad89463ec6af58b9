import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { bapiWith, createTestUser } from '../testing/fapi-helpers';
import { explainQuery } from '../testing/explain';
import { membershipsStatement } from './memberships';
import { keyset, oldestFirst } from '../http/cursor-list';
import { organizationMemberships } from '../db/schema';
import { SEARCH_CANDIDATES } from '../db/user-search';

/**
 * The member list and member search of a big organization: the list walks the organization's
 * memberships in id order on their own index (no sort of every member), the member count is
 * read from the organization's row (no count at all), and a search is the users' bounded prefix ranges
 * narrowed to the members inside each bound. Plans with sequential scans off, on an
 * organization of a few thousand members among more users of the instance.
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
const { ok: bapiOk, call: bapi } = bapiWith(h, i);
const MEMBERS = 3000;
let orgId: string;
let leadId: string;

beforeAll(async () => {
  const template = await createTestUser(h, i, {
    email_address: ['lead@example.com'],
    first_name: 'Lead',
    last_name: 'Person',
    username: 'lead',
  });
  leadId = template;
  const org = await bapiOk('POST', '/v1/organizations', { name: 'Big', created_by: template });
  orgId = org.id;
  const db = h.runtime.deps.db;
  // Users copied from the template (2 × MEMBERS: the even ones join), their addresses, phones and memberships.
  const copies = (table: string, key: string, value: string, changes: string, where = 'true') =>
    db.execute(
      sql.raw(
        `insert into ${table} select (jsonb_populate_record(null::${table}, to_jsonb(t) || ${changes})).* ` +
          `from ${table} t, generate_series(1, ${2 * MEMBERS}) g where t.${key} = '${value}' and ${where}`,
      ),
    );
  await copies(
    'users',
    'id',
    template,
    `jsonb_build_object('id', 'user_m' || g, 'username', 'm' || g, 'username_key', 'm' || g, 'external_id', null, 'first_name', 'Member' || g, 'last_name', 'Number' || g)`,
  );
  await copies(
    'email_addresses',
    'user_id',
    template,
    `jsonb_build_object('id', 'idn_m' || g, 'user_id', 'user_m' || g, 'email_address', 'm' || g || '@big.example', 'email_key', 'm' || g || '@big.example')`,
  );
  await db.execute(sql.raw(`update users set primary_email_address_id = 'idn_m' || substr(id, 7) where id like 'user\\_m%'`));
  await copies(
    'organization_memberships',
    'organization_id',
    orgId,
    `jsonb_build_object('id', 'orgmem_m' || lpad(g::text, 6, '0'), 'user_id', 'user_m' || g, 'role', 'org:member')`,
    'g % 2 = 0',
  );
  // The odd ones are members of another organization, their ids between this one's (the primary key's order is no shortcut).
  const otherOrg = await bapiOk('POST', '/v1/organizations', { name: 'Other', created_by: template });
  await copies(
    'organization_memberships',
    'organization_id',
    orgId,
    `jsonb_build_object('id', 'orgmem_m' || lpad(g::text, 6, '0'), 'user_id', 'user_m' || g, 'role', 'org:member', 'organization_id', '${otherOrg.id}')`,
    `g % 2 = 1 and t.user_id = '${template}'`,
  );
  for (const table of ['users', 'email_addresses', 'organization_memberships']) await db.execute(sql.raw(`analyze ${table}`));
}, 120_000);

function planOf(q: { query?: string }, after?: string) {
  const db = h.runtime.deps.db;
  const page = keyset(oldestFirst(organizationMemberships.id), { limit: 20, starting_after: after });
  return explainQuery(
    db,
    membershipsStatement(db, i.instanceId, { organizationId: orgId, ...q }, page)
      .limit(21)
      .toSQL(),
  );
}

describe('organization member list and search (EXPLAIN)', () => {
  it('the list: the organization’s memberships in id order on (organization_id, id), its member count read from its row', async () => {
    for (const plan of [await planOf({}), await planOf({}, 'orgmem_m001000')]) {
      expect(plan).not.toMatch(/Seq Scan/);
      expect(plan).toContain('organization_memberships_org_idx');
      expect(plan).not.toMatch(/Sort/);
      // organizations.members_count (kept by triggers): no count of the members, neither per row nor per page.
      expect(plan).not.toMatch(/SubPlan|InitPlan|Aggregate/);
    }
  });
  it('the search: bounded prefix ranges on the users’ indexes, each narrowed to the members', async () => {
    const plan = await planOf({ query: 'member12' });
    expect(plan).not.toMatch(/Seq Scan/);
    for (const index of [
      'users_search_first_idx',
      'users_search_last_idx',
      'users_search_username_idx',
      'email_addresses_search_idx',
      'email_addresses_domain_idx',
    ]) {
      expect(plan).toContain(index);
    }
    expect(plan).toContain('organization_memberships_uq');
    expect(plan.match(/Limit/g)?.length).toBeGreaterThanOrEqual(7);
    // The page's memberships are picked first (their ids, in order, limited), and only they are joined.
    expect(plan).toMatch(/InitPlan \d+[^\n]*\n\s*->\s+Limit[\s\S]*Sort Key: organization_memberships_1\.id/);
  });
  it('finds what a person expects, members only, through the API', async () => {
    const ids = async (query: string) => {
      const out: string[] = [];
      let after: string | undefined;
      for (;;) {
        const page = await bapiOk(
          'GET',
          `/v1/organizations/${orgId}/memberships?limit=500&query=${encodeURIComponent(query)}${after ? `&starting_after=${after}` : ''}`,
        );
        out.push(...page.data.map((m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id));
        if (!page.has_more) return out;
        after = page.data.at(-1).id;
      }
    };
    expect(await ids('m12@big.example')).toEqual(['user_m12']);
    expect(await ids('m13@big.example')).toEqual([]); // an odd one: a user of the instance, not a member
    expect(await ids('Member124')).toEqual(['user_m124', 'user_m1240', 'user_m1242', 'user_m1244', 'user_m1246', 'user_m1248']);
    expect(await ids('member124 number124')).toEqual(['user_m124', 'user_m1240', 'user_m1242', 'user_m1244', 'user_m1246', 'user_m1248']);
    expect(await ids('lead')).toEqual([leadId]);
    // Every member shares the domain: each field gives at most SEARCH_CANDIDATES, so the answer is bounded.
    const all = await ids('big.example');
    expect(all.length).toBe(SEARCH_CANDIDATES);
    expect(all.every((id) => Number(id.slice(6)) % 2 === 0)).toBe(true);
    expect(await ids('nobody-like-this')).toEqual([]);
    const page = await bapiOk('GET', `/v1/organizations/${orgId}/memberships?limit=2`);
    expect(page.data[0].organization.members_count).toBe(MEMBERS + 1);
    expect(page.data[1].organization.members_count).toBe(MEMBERS + 1);
    const tooLong = await bapi('GET', `/v1/organizations/${orgId}/memberships?query=${'x'.repeat(300)}`);
    expect(tooLong.status).toBe(422);
  });
});
