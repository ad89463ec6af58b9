import { sql } from 'drizzle-orm';

/** The HTTP plumbing's hand-written statements (docs/development.md, "Data access"). */

/** Takes the transaction's lock on one idempotency key, without waiting: `locked` false when another request holds it. */
export const idempotencyKeyLockSql = (instanceId: string, credentialId: string, key: string) =>
  sql`select pg_try_advisory_xact_lock(hashtextextended(${`${instanceId}:${credentialId}:${key}`}, 0)) as locked`;
