import { sql, type Placeholder, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { preparedSql } from '../db/prepared';
import { emailAddresses, phoneNumbers, totpFactors, users } from '../db/schema';

/** The users domain's hand-written statements (docs/development.md, "Data access"). */

type Param<T> = T | Placeholder;

/**
 * Whether the user has a verified TOTP factor (an indexed EXISTS), as a column or a filter.
 * Spelled out: the relational query would alias a referenced table's columns to "users".
 */
export const hasVerifiedTotpSql = (userId: AnyPgColumn) =>
  sql<boolean>`exists (select 1 from totp_factors tf where tf.user_id = ${userId} and tf.status = 'verified')`;

/** Whether the user has a verified email address, as a filter. */
export const hasVerifiedEmailSql = (userId: AnyPgColumn) =>
  sql`exists (select 1 from email_addresses ea where ea.user_id = ${userId} and ea.verification_status = 'verified')`;

/** An email address or phone number of the user as `userByIdSql` gives it (json: its times are numbers). */
interface IdentifierJson {
  id: string;
  verificationStatus: 'verified' | 'unverified';
  verificationStrategy: string | null;
  createdAt: number;
  updatedAt: number;
}
export type EmailAddressJson = IdentifierJson & { emailAddress: string };
export type PhoneNumberJson = IdentifierJson & { phoneNumber: string };

/**
 * A row of `userByIdSql` as the driver answers it: the users columns by their names (bigint
 * columns as strings on postgres.js, numbers on PGlite; jsonb parsed), `two_factor_enabled`,
 * and the email addresses and phone numbers as json arrays in id order (parsed, or text).
 */
export interface UserByIdRow {
  id: string;
  instance_id: string;
  external_id: string | null;
  first_name: string | null;
  last_name: string | null;
  username: string | null;
  username_key: string | null;
  primary_email_address_id: string | null;
  primary_phone_number_id: string | null;
  password_digest: string | null;
  password_hasher: string | null;
  public_metadata: unknown;
  private_metadata: unknown;
  unsafe_metadata: unknown;
  banned: boolean;
  locked: boolean;
  locked_until: number | string | null;
  sessions_version: number;
  last_sign_in_at: number | string | null;
  locale: string | null;
  image_url: string | null;
  created_at: number | string;
  updated_at: number | string;
  two_factor_enabled: boolean;
  email_addresses: EmailAddressJson[] | string;
  phone_numbers: PhoneNumberJson[] | string;
}

/**
 * A user's identifiers of one table as a json array in id order, each object keyed as the
 * schema's fields are (`key` names the address or number: a constant of this module, not input).
 */
const identifiersJson = (
  table: typeof emailAddresses | typeof phoneNumbers,
  key: 'emailAddress' | 'phoneNumber',
  column: 'email_address' | 'phone_number',
) =>
  sql`coalesce((
      select json_agg(json_build_object('id', i.id, '${sql.raw(key)}', i.${sql.raw(column)},
               'verificationStatus', i.verification_status, 'verificationStrategy', i.verification_strategy,
               'createdAt', i.created_at, 'updatedAt', i.updated_at) order by i.id)
        from ${table} i where i.user_id = u.id), '[]'::json)`;

/**
 * One user of an instance with everything its view shows, in one statement: the users row,
 * whether it has a verified TOTP factor, its email addresses and phone numbers (each by the
 * user's index, in id order). No row when the instance has no such user. Apart so that a test
 * can EXPLAIN it.
 */
export const userByIdSql = (v: { id: Param<string>; instanceId: Param<string> }): SQL => sql`
  select u.id, u.instance_id, u.external_id, u.first_name, u.last_name, u.username, u.username_key,
         u.primary_email_address_id, u.primary_phone_number_id, u.password_digest, u.password_hasher,
         u.public_metadata, u.private_metadata, u.unsafe_metadata, u.banned, u.locked, u.locked_until,
         u.sessions_version, u.last_sign_in_at, u.locale, u.image_url, u.created_at, u.updated_at,
         exists (select 1 from ${totpFactors} tf where tf.user_id = u.id and tf.status = 'verified') as two_factor_enabled,
         ${identifiersJson(emailAddresses, 'emailAddress', 'email_address')} as email_addresses,
         ${identifiersJson(phoneNumbers, 'phoneNumber', 'phone_number')} as phone_numbers
    from ${users} u
   where u.id = ${v.id} and u.instance_id = ${v.instanceId}`;

/** `userByIdSql`, prepared once per handle: GET /v1/users/:id and every read of one user. */
export const userById = preparedSql('user_by_id', () =>
  userByIdSql({ id: sql.placeholder('id'), instanceId: sql.placeholder('instanceId') }),
);
