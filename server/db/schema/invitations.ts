import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef } from './instances';
import type { Metadata } from './users';

export const INSTANCE_INVITATION_STATUSES = ['pending', 'accepted', 'revoked', 'expired'] as const;

/**
 * Instance invitations (Clerk's /v1/invitations): an email address admitted to sign up
 * while `sign_up_mode` is `restricted`, besides the allowlist.
 */
export const invitations = pgTable(
  'invitations',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    emailAddress: text('email_address').notNull(),
    /** Lower-cased address. */
    emailKey: text('email_key').notNull(),
    status: text('status', { enum: INSTANCE_INVITATION_STATUSES }).notNull(),
    redirectUrl: text('redirect_url'),
    publicMetadata: jsonb('public_metadata').$type<Metadata>().notNull().default({}),
    expiresAt: millis('expires_at'),
    ...timestamps(),
  },
  (t) => [index('invitations_instance_idx').on(t.instanceId, t.id), index('invitations_email_idx').on(t.instanceId, t.emailKey)],
);
