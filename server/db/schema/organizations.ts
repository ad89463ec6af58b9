import { boolean, index, integer, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { bytea, instanceRef } from './instances';
import { users, type Metadata } from './users';

/** A customer's customer: members with roles, invitations, verified domains. */
export const organizations = pgTable(
  'organizations',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef(),
    name: text('name').notNull(),
    /** Unique per instance, lower-case. */
    slug: text('slug').notNull(),
    imageUrl: text('image_url'),
    publicMetadata: jsonb('public_metadata').$type<Metadata>().notNull().default({}),
    privateMetadata: jsonb('private_metadata').$type<Metadata>().notNull().default({}),
    /** 0: no cap. */
    maxAllowedMemberships: integer('max_allowed_memberships').notNull().default(0),
    /**
     * Its memberships, kept by statement triggers on organization_memberships in the transaction of
     * each change (migration 0052), so lists show members_count without counting a page's members.
     */
    membersCount: integer('members_count').notNull().default(0),
    createdBy: text('created_by'),
    ...timestamps(),
  },
  (t) => [uniqueIndex('organizations_slug_uq').on(t.instanceId, t.slug), index('organizations_instance_idx').on(t.instanceId, t.id)],
);

/** An organization's logo: the image itself, checked and at most 512 KiB, served by the FAPI with caching. */
export const organizationLogos = pgTable('organization_logos', {
  organizationId: text('organization_id')
    .primaryKey()
    .references(() => organizations.id, { onDelete: 'cascade' }),
  instanceId: instanceRef('cascade'),
  contentType: text('content_type').notNull(),
  bytes: bytea('bytes').notNull(),
  /** The first 16 hex digits of the image's SHA-256, in the URL. */
  version: text('version').notNull(),
  updatedAt: millis('updated_at').notNull(),
});

export const organizationMemberships = pgTable(
  'organization_memberships',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** A role key, e.g. `org:admin`. */
    role: text('role').notNull(),
    /** `suspended`: deactivated by the organization's directory (SCIM); it grants nothing until restored. */
    status: text('status', { enum: ['active', 'suspended'] })
      .notNull()
      .default('active'),
    publicMetadata: jsonb('public_metadata').$type<Metadata>().notNull().default({}),
    privateMetadata: jsonb('private_metadata').$type<Metadata>().notNull().default({}),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('organization_memberships_uq').on(t.organizationId, t.userId),
    index('organization_memberships_user_idx').on(t.userId, t.id),
    /** The member list, oldest first, one organization at a time (keyset on the membership id). */
    index('organization_memberships_org_idx').on(t.organizationId, t.id),
  ],
);

export const INVITATION_STATUSES = ['pending', 'accepted', 'revoked'] as const;

/** `expired` is not stored: a pending invitation past expires_at shows as expired. */
export const organizationInvitations = pgTable(
  'organization_invitations',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    emailAddress: text('email_address').notNull(),
    /** Lower-cased address. */
    emailKey: text('email_key').notNull(),
    role: text('role').notNull(),
    status: text('status', { enum: INVITATION_STATUSES }).notNull(),
    /** SHA-256 of the token the accept link carries; null for invitations made by domain enrollment. */
    tokenDigest: text('token_digest'),
    redirectUrl: text('redirect_url'),
    publicMetadata: jsonb('public_metadata').$type<Metadata>().notNull().default({}),
    privateMetadata: jsonb('private_metadata').$type<Metadata>().notNull().default({}),
    inviterUserId: text('inviter_user_id'),
    expiresAt: millis('expires_at').notNull(),
    ...timestamps(),
  },
  (t) => [
    index('organization_invitations_org_idx').on(t.organizationId, t.id),
    index('organization_invitations_email_idx').on(t.instanceId, t.emailKey),
    uniqueIndex('organization_invitations_token_uq').on(t.tokenDigest),
  ],
);

export const ENROLLMENT_MODES = ['manual_invitation', 'automatic_invitation', 'automatic_suggestion'] as const;
export type EnrollmentMode = (typeof ENROLLMENT_MODES)[number];

export const organizationDomains = pgTable(
  'organization_domains',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** Lower-case domain name. */
    name: text('name').notNull(),
    enrollmentMode: text('enrollment_mode', { enum: ENROLLMENT_MODES }).notNull(),
    verificationStatus: text('verification_status', { enum: ['unverified', 'verified'] }).notNull(),
    verificationStrategy: text('verification_strategy'),
    affiliationEmailAddress: text('affiliation_email_address'),
    /** The value of the TXT record that proves control of the domain (not a secret: it is published). */
    txtRecordValue: text('txt_record_value').notNull(),
    verifiedAt: millis('verified_at'),
    /** The last verification check (a DNS lookup), failed or not; null before the first. */
    lastCheckedAt: millis('last_checked_at'),
    /** Why the last check failed, in words an IT admin can act on; null once one succeeds. */
    verificationError: text('verification_error'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('organization_domains_uq').on(t.organizationId, t.name),
    index('organization_domains_name_idx').on(t.instanceId, t.name),
  ],
);

/** Offers to join an organization, made by automatic_suggestion domains. */
export const organizationSuggestions = pgTable(
  'organization_suggestions',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'accepted'] }).notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('organization_suggestions_uq').on(t.organizationId, t.userId),
    index('organization_suggestions_user_idx').on(t.userId),
  ],
);

/**
 * A user's request to join an organization (`orgmemreq_`), made by accepting a suggestion;
 * its admins accept or reject it (server/organizations/membership-requests.ts).
 */
export const organizationMembershipRequests = pgTable(
  'organization_membership_requests',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    status: text('status', { enum: ['pending', 'accepted', 'rejected'] }).notNull(),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('organization_membership_requests_uq').on(t.organizationId, t.userId),
    index('organization_membership_requests_user_idx').on(t.userId),
  ],
);

/** `org:<feature>:<action>`; system ones (`org:sys_…`) are built in per instance. */
export const permissions = pgTable(
  'permissions',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef(),
    key: text('key').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    system: boolean('system').notNull().default(false),
    ...timestamps(),
  },
  (t) => [uniqueIndex('permissions_key_uq').on(t.instanceId, t.key)],
);

/** A named set of permission keys; `org:admin` and `org:member` are built in per instance. */
export const roles = pgTable(
  'roles',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef(),
    key: text('key').notNull(),
    name: text('name').notNull(),
    description: text('description').notNull().default(''),
    permissions: jsonb('permissions').$type<string[]>().notNull().default([]),
    system: boolean('system').notNull().default(false),
    ...timestamps(),
  },
  (t) => [uniqueIndex('roles_key_uq').on(t.instanceId, t.key)],
);
