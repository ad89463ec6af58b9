import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef } from './instances';
import { organizations } from './organizations';
import { users } from './users';

/**
 * An LTI 1.3 platform registration (`ltip_`): a learning-management system allowed to launch
 * into the instance. The pair (issuer, client_id) names it; launches are verified against
 * its JWKS and land only on its registered target_link_uris.
 */
export const ltiPlatforms = pgTable(
  'lti_platforms',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    name: text('name').notNull(),
    issuer: text('issuer').notNull(),
    clientId: text('client_id').notNull(),
    authorizationEndpoint: text('authorization_endpoint').notNull(),
    jwksUri: text('jwks_uri').notNull(),
    /** The deployment_id allowlist. */
    deploymentIds: jsonb('deployment_ids').$type<string[]>().notNull(),
    /** Where a launch may land (exact match). */
    targetLinkUris: jsonb('target_link_uris').$type<string[]>().notNull(),
    /** Launches join the learner to an organization per course context (made on first use). */
    organizationsFromContexts: boolean('organizations_from_contexts').notNull().default(false),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('lti_platforms_issuer_client_uq').on(t.instanceId, t.issuer, t.clientId),
    index('lti_platforms_instance_idx').on(t.instanceId, t.id),
  ],
);

/**
 * A login initiation awaiting its launch: the state (kept as its SHA-256 only) and the nonce
 * issued with it. Both are single use: the launch consumes the row; an expired one is void.
 */
export const ltiLaunchStates = pgTable(
  'lti_launch_states',
  {
    stateDigest: text('state_digest').primaryKey(),
    instanceId: text('instance_id').notNull(),
    platformId: text('platform_id')
      .notNull()
      .references(() => ltiPlatforms.id, { onDelete: 'cascade' }),
    nonce: text('nonce').notNull(),
    targetLinkUri: text('target_link_uri').notNull(),
    expiresAt: millis('expires_at').notNull(),
    usedAt: millis('used_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [index('lti_launch_states_expiry_idx').on(t.expiresAt)],
);

/**
 * A user's LTI identity: the platform's issuer and the learner's `sub` there. The same
 * learner launching again signs in as the same user.
 */
export const ltiIdentities = pgTable(
  'lti_identities',
  {
    instanceId: text('instance_id').notNull(),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    platformId: text('platform_id'),
    picture: text('picture'),
    roles: jsonb('roles').$type<string[]>().notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('lti_identities_uq').on(t.instanceId, t.issuer, t.subject), index('lti_identities_user_idx').on(t.userId)],
);

/** The organization a platform's course context maps to (registrations with organizations_from_contexts). */
export const ltiContextOrganizations = pgTable(
  'lti_context_organizations',
  {
    instanceId: text('instance_id').notNull(),
    issuer: text('issuer').notNull(),
    contextId: text('context_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.issuer, t.contextId] }), index('lti_context_organizations_org_idx').on(t.organizationId)],
);
