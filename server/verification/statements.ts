import { sql } from 'drizzle-orm';

/** The verification codes' hand-written statements (docs/development.md, "Data access"). */

/** The transaction's lock on the codes of one address of an instance (its reissue caps are counted under it). */
export const addressCodesLockSql = (instanceId: string, address: string) =>
  sql`select pg_advisory_xact_lock(hashtext(${`verification:${instanceId}:${address}`}))`;
