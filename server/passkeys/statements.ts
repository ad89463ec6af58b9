import { sql } from 'drizzle-orm';

/** The passkeys domain's hand-written statements (docs/development.md, "Data access"). */

/**
 * Whether the user has a passkey, as a column of a query `from(users)`. Spelled out: drizzle
 * renders a column of a one-table query unqualified, and a bare "id" inside the subquery
 * would be the passkey's own.
 */
export const passkeyOfUser = () =>
  sql<boolean>`exists (select 1 from passkeys pk where pk.user_id = "users"."id" and pk.disabled_at is null)`.mapWith(Boolean);
