import { sql, type SQL } from 'drizzle-orm';

/** The organizations domain's hand-written statements (docs/development.md, "Data access"). */

/** Whether the user (a column or expression) is a member of the organization. */
export const isMemberSql = (orgId: string) => (userId: SQL) =>
  sql`exists (select 1 from organization_memberships s where s.organization_id = ${orgId} and s.user_id = ${userId})`;

/**
 * The memberships of one page, picked before any join: `id = any(array(select id … order by … limit n))`
 * with `where` (the list's filters, the search and the cursor) and `orderBy` as the outer query has them.
 * The subquery's table shadows the outer one, so those expressions apply inside it.
 */
export const pageOfMembershipsSql = (where: SQL | undefined, orderBy: SQL, limit: number) =>
  sql`organization_memberships.id = any(array(select organization_memberships.id from organization_memberships where ${where ?? sql`true`} order by ${orderBy} limit ${limit}))`;
