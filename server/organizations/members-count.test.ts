import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { sharedHarness, sharedInstance } from '../testing/harness';
import { bapiWith, createTestUser } from '../testing/fapi-helpers';
import { rowsOf } from '../db/rows';

/**
 * `members_count` is kept in the organization's row by the triggers of migration 0052, in the
 * transaction of each membership change — whichever path makes it (the API, a user's deletion
 * cascading to their memberships, an organization's import, SQL) — so a list of organizations
 * reads it instead of counting each organization's members.
 */
const h = sharedHarness({ env: { BAPI_RATE_LIMIT: '100000' } });
const i = sharedInstance(h);
const { ok, call } = bapiWith(h, i);
let seq = 0;
const newUser = () => createTestUser(h, i, { email_address: `count-${++seq}-${Date.now().toString(36)}@example.com` });

const listed = async (orgId: string) =>
  ((await ok('GET', '/v1/organizations?limit=100')).data as { id: string; members_count: number }[]).find((o) => o.id === orgId)
    ?.members_count;
const counted = async (orgId: string) =>
  Number(
    rowsOf<{ n: number }>(
      await h.runtime.deps.db.execute(sql`select count(*)::int as n from organization_memberships where organization_id = ${orgId}`),
    )[0]!.n,
  );

describe('members_count', () => {
  it('follows every membership change: added, removed, a member deleted, rows inserted and deleted by SQL in one statement', async () => {
    const creator = await newUser();
    const org = await ok('POST', '/v1/organizations', { name: `Counted ${seq}`, created_by: creator });
    expect(org.members_count).toBe(1);
    const others = [await newUser(), await newUser(), await newUser()];
    for (const user_id of others) await ok('POST', `/v1/organizations/${org.id}/memberships`, { user_id });
    expect(await listed(org.id)).toBe(4);
    expect((await ok('GET', `/v1/organizations/${org.id}`)).members_count).toBe(4);

    const removed = await call('DELETE', `/v1/organizations/${org.id}/memberships/${others[0]}`);
    expect(removed.status).toBe(200);
    expect(removed.body.organization.members_count).toBe(3);
    expect(await listed(org.id)).toBe(3);

    // Deleting a user removes their memberships (a cascade, no code of ours): still counted.
    expect((await call('DELETE', `/v1/users/${others[1]}`)).status).toBe(200);
    expect(await listed(org.id)).toBe(2);

    // A bulk insert and a bulk delete (imports, scripts, the bench's seeding): one statement each.
    const db = h.runtime.deps.db;
    const bulk = [await newUser(), await newUser(), await newUser(), await newUser()];
    await db.execute(sql`
      insert into organization_memberships (id, instance_id, organization_id, user_id, role, created_at, updated_at)
      select 'orgmem_bulk' || n || ${org.id}, ${i.instanceId}, ${org.id}, (array[${sql.join(
        bulk.map((u) => sql`${u}`),
        sql`, `,
      )}])[n], 'org:member', 0, 0
        from generate_series(1, ${bulk.length}::int) n`);
    expect(await listed(org.id)).toBe(6);
    await db.execute(sql`delete from organization_memberships where organization_id = ${org.id} and id like 'orgmem_bulk%'`);
    expect(await listed(org.id)).toBe(2);
    expect(await counted(org.id)).toBe(2);
  });

  it('a membership added in a transaction that rolls back is not counted', async () => {
    const org = await ok('POST', '/v1/organizations', { name: `Rolled back ${seq}` });
    const user = await newUser();
    await expect(
      h.runtime.deps.db.transaction(async (tx) => {
        await tx.execute(sql`
          insert into organization_memberships (id, instance_id, organization_id, user_id, role, created_at, updated_at)
          values (${`orgmem_rb${seq}`}, ${i.instanceId}, ${org.id}, ${user}, 'org:member', 0, 0)`);
        expect(
          rowsOf<{ members_count: number }>(await tx.execute(sql`select members_count from organizations where id = ${org.id}`))[0]!
            .members_count,
        ).toBe(1);
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    expect(await listed(org.id)).toBe(0);
  });
});
