import { sql } from 'drizzle-orm';

/** The admin portal's hand-written statements (docs/development.md, "Data access"). */

/** The ids of an organization's rows of `table` (a table with an `organization_id`). */
export const ownedIdsSql = (table: string, organizationId: string) =>
  sql`select id from ${sql.identifier(table)} where organization_id = ${organizationId}`;

/** The audit actors (`<prefix><id>`) of an organization's rows of `table`. */
export const ownedActorsSql = (table: string, prefix: string, organizationId: string) =>
  sql`select ${prefix} || id from ${sql.identifier(table)} where organization_id = ${organizationId}`;
