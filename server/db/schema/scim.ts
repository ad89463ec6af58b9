import { boolean, index, integer, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { organizations } from './organizations';
import { users } from './users';

/** A per-organization SCIM bearer token (`scim_…`); only its SHA-256 digest is stored. */
export const scimTokens = pgTable(
  'scim_tokens',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    digest: text('digest').notNull(),
    createdAt: millis('created_at').notNull(),
    lastUsedAt: millis('last_used_at'),
    revokedAt: millis('revoked_at'),
  },
  (t) => [uniqueIndex('scim_tokens_digest_uq').on(t.digest), index('scim_tokens_org_idx').on(t.organizationId, t.id)],
);

/**
 * A directory's failed SCIM requests (an answer of 400 or more to a request with a valid token): a
 * count and the last one (method, path without its query, status, scimType and detail), never a body.
 */
export const scimDirectoryErrors = pgTable('scim_directory_errors', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  instanceId: text('instance_id').notNull(),
  errorsCount: integer('errors_count').notNull().default(0),
  lastErrorAt: millis('last_error_at').notNull(),
  lastMethod: text('last_method').notNull(),
  lastPath: text('last_path').notNull(),
  lastStatus: integer('last_status').notNull(),
  lastScimType: text('last_scim_type'),
  lastDetail: text('last_detail').notNull(),
});

export interface ScimEnterprise {
  employeeNumber?: string;
  department?: string;
  manager?: { value?: string; displayName?: string };
}
export interface ScimEmail {
  value: string;
  type?: string;
  primary?: boolean;
  display?: string;
}
/** A phone number as the directory sent it (not verified: a directory proves nothing about phones). */
export type ScimPhone = ScimEmail;
/** RFC 7643 §4.1.2 addresses. */
export interface ScimAddress {
  formatted?: string;
  streetAddress?: string;
  locality?: string;
  region?: string;
  postalCode?: string;
  country?: string;
  type?: string;
  primary?: boolean;
}

/**
 * A Latchkey user as one organization's directory sees it: the SCIM id is the user id;
 * userName, externalId and the directory-only attributes are per organization.
 */
export const scimUsers = pgTable(
  'scim_users',
  {
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    instanceId: text('instance_id').notNull(),
    userName: text('user_name').notNull(),
    /** Lower-cased userName: the directory's uniqueness is case-insensitive. */
    userNameKey: text('user_name_key').notNull(),
    externalId: text('external_id'),
    displayName: text('display_name'),
    emails: jsonb('emails').$type<ScimEmail[]>().notNull().default([]),
    phoneNumbers: jsonb('phone_numbers').$type<ScimPhone[]>().notNull().default([]),
    addresses: jsonb('addresses').$type<ScimAddress[]>().notNull().default([]),
    title: text('title'),
    /** As sent (`en-US`); the user's locale follows it when Latchkey supports the language. */
    preferredLanguage: text('preferred_language'),
    enterprise: jsonb('enterprise').$type<ScimEnterprise>().notNull().default({}),
    active: boolean('active').notNull().default(true),
    /** The directory created this Latchkey user (rather than linking an existing one). */
    createdUser: boolean('created_user').notNull().default(false),
    /** Deactivation banned the user (it belonged nowhere else); reactivation unbans it. */
    bannedByDirectory: boolean('banned_by_directory').notNull().default(false),
    version: integer('version').notNull().default(1),
    ...timestamps(),
  },
  (t) => [
    primaryKey({ columns: [t.organizationId, t.userId] }),
    uniqueIndex('scim_users_user_name_uq').on(t.organizationId, t.userNameKey),
    index('scim_users_external_id_idx').on(t.organizationId, t.externalId),
  ],
);

/** A directory group; `role` maps its members to an organization role. */
export const scimGroups = pgTable(
  'scim_groups',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    displayName: text('display_name').notNull(),
    displayNameKey: text('display_name_key').notNull(),
    externalId: text('external_id'),
    role: text('role'),
    version: integer('version').notNull().default(1),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('scim_groups_display_name_uq').on(t.organizationId, t.displayNameKey),
    index('scim_groups_org_idx').on(t.organizationId, t.id),
  ],
);

export const scimGroupMembers = pgTable(
  'scim_group_members',
  {
    groupId: text('group_id')
      .notNull()
      .references(() => scimGroups.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    organizationId: text('organization_id').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.userId] }), index('scim_group_members_user_idx').on(t.organizationId, t.userId)],
);
