import { index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis } from './columns';
import { organizations } from './organizations';
import { ssoConnections } from './sso';

export const PORTAL_INTENTS = ['sso', 'dsync', 'domain_verification', 'audit_logs'] as const;
export type PortalIntent = (typeof PORTAL_INTENTS)[number];

/**
 * An admin portal link (`ptl_`): single use, 5 minutes. Opening it binds one portal session
 * to the browser that opened it (`session_digest`, one hour, sliding). Only SHA-256 digests
 * of the link token and of the session token are kept.
 */
export const portalLinks = pgTable(
  'portal_links',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    intent: text('intent', { enum: PORTAL_INTENTS }).notNull(),
    digest: text('digest').notNull(),
    returnUrl: text('return_url'),
    successUrl: text('success_url'),
    /** Who asked for the link (an audit actor string: `key:…`, `operator:…`, `session:…`). */
    createdBy: text('created_by').notNull(),
    expiresAt: millis('expires_at').notNull(),
    usedAt: millis('used_at'),
    sessionDigest: text('session_digest'),
    sessionExpiresAt: millis('session_expires_at'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [
    uniqueIndex('portal_links_digest_uq').on(t.digest),
    uniqueIndex('portal_links_session_digest_uq').on(t.sessionDigest),
    index('portal_links_organization_idx').on(t.organizationId),
  ],
);

export type SsoTestStatus = 'pending' | 'succeeded' | 'failed';

/**
 * A "Test connection" round trip started from the portal (`ssot_`): the IdP's answer is
 * checked like a sign-in's but signs no one in; what it said (or why it was refused) is kept
 * here. `connection_version` is the connection's `updated_at` when the test started: a later
 * change of the connection needs a new test before activation.
 */
export const ssoConnectionTests = pgTable(
  'sso_connection_tests',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    connectionId: text('connection_id')
      .notNull()
      .references(() => ssoConnections.id, { onDelete: 'cascade' }),
    portalLinkId: text('portal_link_id'),
    /** The sso_requests row in flight (its handle answers InResponseTo / state). */
    requestId: text('request_id').notNull(),
    status: text('status').$type<SsoTestStatus>().notNull(),
    reason: text('reason'),
    message: text('message'),
    result: jsonb('result').$type<Record<string, unknown>>(),
    connectionVersion: millis('connection_version').notNull(),
    createdAt: millis('created_at').notNull(),
    completedAt: millis('completed_at'),
  },
  (t) => [
    index('sso_connection_tests_connection_idx').on(t.connectionId, t.id),
    uniqueIndex('sso_connection_tests_request_uq').on(t.requestId),
  ],
);
