import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { bytea, instanceRef } from './instances';

export type Metadata = Record<string, unknown>;

export const users = pgTable(
  'users',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef(),
    externalId: text('external_id'),
    firstName: text('first_name'),
    lastName: text('last_name'),
    username: text('username'),
    /** Lower-cased username: uniqueness is case-insensitive. */
    usernameKey: text('username_key'),
    primaryEmailAddressId: text('primary_email_address_id'),
    primaryPhoneNumberId: text('primary_phone_number_id'),
    passwordDigest: text('password_digest'),
    passwordHasher: text('password_hasher'),
    publicMetadata: jsonb('public_metadata').$type<Metadata>().notNull().default({}),
    privateMetadata: jsonb('private_metadata').$type<Metadata>().notNull().default({}),
    unsafeMetadata: jsonb('unsafe_metadata').$type<Metadata>().notNull().default({}),
    banned: boolean('banned').notNull().default(false),
    locked: boolean('locked').notNull().default(false),
    /** While `locked`: when the lockout ends (attack protection); null for no end. */
    lockedUntil: millis('locked_until'),
    sessionsVersion: integer('sessions_version').notNull().default(1),
    lastSignInAt: millis('last_sign_in_at'),
    /** Preferred language (BCP 47) of the user's emails, SMS and hosted pages; null: the request's, then the instance's. */
    locale: text('locale'),
    /** The uploaded profile image's URL (its version in the path), null without one. */
    imageUrl: text('image_url'),
    ...timestamps(),
  },
  (t) => [
    index('users_instance_id_idx').on(t.instanceId, t.id),
    uniqueIndex('users_username_uq').on(t.instanceId, t.usernameKey),
    index('users_external_id_idx').on(t.instanceId, t.externalId),
    // The console's user list: date ranges, the banned and locked filters, sort by last sign-in or name.
    index('users_created_at_idx').on(t.instanceId, t.createdAt),
    index('users_last_sign_in_idx').on(t.instanceId, t.lastSignInAt),
    index('users_banned_idx')
      .on(t.instanceId, t.id)
      .where(sql`${t.banned}`),
    index('users_locked_idx')
      .on(t.instanceId, t.id)
      .where(sql`${t.locked}`),
    index('users_sort_name_idx').on(
      t.instanceId,
      sql`lower(coalesce(${t.firstName}, '') || ' ' || coalesce(${t.lastName}, '') || ' ' || coalesce(${t.username}, ''))`,
      t.id,
    ),
    // GET /v1/users?query= (server/db/user-search.ts): prefix ranges, lower-cased in the C collation.
    index('users_search_first_idx').on(t.instanceId, sql`(lower(${t.firstName}) collate "C")`),
    index('users_search_last_idx').on(t.instanceId, sql`(lower(${t.lastName}) collate "C")`),
    index('users_search_username_idx').on(t.instanceId, sql`(${t.usernameKey} collate "C")`),
    index('users_search_external_idx').on(t.instanceId, sql`(${t.externalId} collate "C")`),
  ],
);

export const emailAddresses = pgTable(
  'email_addresses',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    emailAddress: text('email_address').notNull(),
    /** Lower-cased address: uniqueness is case-insensitive. */
    emailKey: text('email_key').notNull(),
    verificationStatus: text('verification_status', { enum: ['verified', 'unverified'] }).notNull(),
    verificationStrategy: text('verification_strategy'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('email_addresses_uq').on(t.instanceId, t.emailKey),
    index('email_addresses_user_idx').on(t.userId),
    index('email_addresses_search_idx').on(t.instanceId, sql`(${t.emailKey} collate "C")`),
    index('email_addresses_domain_idx').on(t.instanceId, sql`(split_part(${t.emailKey}, '@', 2) collate "C")`),
  ],
);

export const phoneNumbers = pgTable(
  'phone_numbers',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    phoneNumber: text('phone_number').notNull(),
    verificationStatus: text('verification_status', { enum: ['verified', 'unverified'] }).notNull(),
    verificationStrategy: text('verification_strategy'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('phone_numbers_uq').on(t.instanceId, t.phoneNumber),
    index('phone_numbers_user_idx').on(t.userId),
    index('phone_numbers_search_idx').on(t.instanceId, sql`(${t.phoneNumber} collate "C")`),
    // A run of digits anywhere in a number (pg_trgm).
    index('phone_numbers_trgm_idx').using('gin', t.phoneNumber.op('gin_trgm_ops')),
  ],
);

/** A user's profile image: the image itself, checked and at most 1 MiB, served by the FAPI with caching. */
export const userImages = pgTable('user_images', {
  userId: text('user_id')
    .primaryKey()
    .references(() => users.id, { onDelete: 'cascade' }),
  instanceId: instanceRef('cascade'),
  contentType: text('content_type').notNull(),
  bytes: bytea('bytes').notNull(),
  /** The first 16 hex digits of the image's SHA-256, in the URL. */
  version: text('version').notNull(),
  updatedAt: millis('updated_at').notNull(),
});
