import { sql, type SQL } from 'drizzle-orm';

/** The organizations domain's hand-written statements (docs/development.md, "Data access"). */

/** Whether the user (a column or expression) is a member of the organization. */
export const isMemberSql = (orgId: string) => (userId: SQL) =>
  sql`exists (select 1 from organization_memberships s where s.organization_id = ${orgId} and s.user_id = ${userId})`;
