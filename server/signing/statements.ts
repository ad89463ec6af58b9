import { sql } from 'drizzle-orm';

/** The signing keys' hand-written statements (docs/development.md, "Data access"). */

/** The transaction's lock on the key changes of one instance (serialises them across nodes). */
export const signingKeysLockSql = (instanceId: string) =>
  sql`select pg_advisory_xact_lock(hashtextextended(${`signing:${instanceId}`}, 0))`;
