import { sql, type SQL } from 'drizzle-orm';
import { organizationMemberships, organizations } from '../db/schema';

/** The organizations domain's hand-written statements (docs/development.md, "Data access"). */

/**
 * An organization's member count, as a column of a query that selects organizations. The
 * table is named whole (`${organizations}`), not through its column: Drizzle writes a column
 * of a single-table select unqualified, and a bare `"id"` inside the subquery is the
 * membership's own id (every count was 0).
 */
export const membersCountColumn = sql<number>`(select count(*)::int from ${organizationMemberships} c where c.organization_id = ${organizations}.id)`;

/** The member count of one organization, as a column. */
export const membersCountOf = (orgId: string) =>
  sql<number>`(select count(*)::int from ${organizationMemberships} c where c.organization_id = ${orgId})`;

/** Whether the user (a column or expression) is a member of the organization. */
export const isMemberSql = (orgId: string) => (userId: SQL) =>
  sql`exists (select 1 from organization_memberships s where s.organization_id = ${orgId} and s.user_id = ${userId})`;
