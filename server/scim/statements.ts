import { sql } from 'drizzle-orm';
import { scimGroups, scimUsers } from '../db/schema';
import type { AttrSpec } from './filter-sql';

/** SCIM's hand-written statements (docs/development.md, "Data access"). */

/** A group's member count, as a column of a query on groups. */
export const groupMembersCount = sql<number>`(select count(*)::int from scim_group_members m where m.group_id = ${scimGroups.id})`;

/** A group's `members` in a filter: each membership `gm` of the group. */
export const groupMembersSpec: AttrSpec = {
  kind: 'multi',
  subs: { value: { kind: 'string', expr: sql`gm.user_id`, caseExact: true } },
  exists: (where) => sql`exists (select 1 from scim_group_members gm where gm.group_id = ${scimGroups.id} and ${where ?? sql`true`})`,
};

/** The user's `emails` in a filter: each element `e.v` of the JSON array. */
export const emailsSpec: AttrSpec = {
  kind: 'multi',
  subs: {
    value: { kind: 'string', expr: sql`(e.v->>'value')`, caseExact: false },
    type: { kind: 'string', expr: sql`(e.v->>'type')`, caseExact: false },
    display: { kind: 'string', expr: sql`(e.v->>'display')`, caseExact: false },
    primary: { kind: 'boolean', expr: sql`((e.v->>'primary')::boolean)` },
  },
  exists: (where) => sql`exists (select 1 from jsonb_array_elements(${scimUsers.emails}) as e(v) where ${where ?? sql`true`})`,
};

/** The user's `phoneNumbers` in a filter: each element `p.v` of the JSON array. */
export const phonesSpec: AttrSpec = {
  kind: 'multi',
  subs: {
    value: { kind: 'string', expr: sql`(p.v->>'value')`, caseExact: false },
    type: { kind: 'string', expr: sql`(p.v->>'type')`, caseExact: false },
    primary: { kind: 'boolean', expr: sql`((p.v->>'primary')::boolean)` },
  },
  exists: (where) => sql`exists (select 1 from jsonb_array_elements(${scimUsers.phoneNumbers}) as p(v) where ${where ?? sql`true`})`,
};
