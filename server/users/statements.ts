import { sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';

/** The users domain's hand-written statements (docs/development.md, "Data access"). */

/**
 * Whether the user has a verified TOTP factor (an indexed EXISTS), as a column or a filter.
 * Spelled out: the relational query would alias a referenced table's columns to "users".
 */
export const hasVerifiedTotpSql = (userId: AnyPgColumn) =>
  sql<boolean>`exists (select 1 from totp_factors tf where tf.user_id = ${userId} and tf.status = 'verified')`;

/** Whether the user has a verified email address, as a filter. */
export const hasVerifiedEmailSql = (userId: AnyPgColumn) =>
  sql`exists (select 1 from email_addresses ea where ea.user_id = ${userId} and ea.verification_status = 'verified')`;
