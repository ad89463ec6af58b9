import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { accounts } from './instances';
import { users } from './users';

/**
 * Operators are users of the platform instance (`instances.kind = 'platform'`). An
 * operator belongs to accounts through memberships, each with one role.
 */
export const OPERATOR_ROLES = ['owner', 'admin', 'viewer'] as const;
export type OperatorRole = (typeof OPERATOR_ROLES)[number];

export const accountMemberships = pgTable(
  'account_memberships',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    /** A user of the platform instance. */
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    role: text('role', { enum: OPERATOR_ROLES }).notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('account_memberships_uq').on(t.accountId, t.userId), index('account_memberships_user_idx').on(t.userId)],
);

/** An invitation of another operator to an account; the token is shown once (in the email) and stored as its SHA-256. */
export const accountInvitations = pgTable(
  'account_invitations',
  {
    id: text('id').primaryKey(),
    accountId: text('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    emailAddress: text('email_address').notNull(),
    role: text('role', { enum: OPERATOR_ROLES }).notNull(),
    digest: text('digest').notNull(),
    status: text('status', { enum: ['pending', 'accepted', 'revoked'] }).notNull(),
    /** `operator:<user_id>` of the inviter. */
    invitedBy: text('invited_by').notNull(),
    expiresAt: millis('expires_at').notNull(),
    ...timestamps(),
  },
  (t) => [uniqueIndex('account_invitations_digest_uq').on(t.digest), index('account_invitations_account_idx').on(t.accountId)],
);

/** One-time console setup tokens (`{PUBLIC_URL}/setup?token=…`), stored as SHA-256; valid until used or replaced. */
export const setupTokens = pgTable(
  'setup_tokens',
  {
    id: text('id').primaryKey(),
    digest: text('digest').notNull(),
    createdAt: millis('created_at').notNull(),
    usedAt: millis('used_at'),
    /** A newer link replaces an unused one. */
    revokedAt: millis('revoked_at'),
  },
  (t) => [uniqueIndex('setup_tokens_digest_uq').on(t.digest)],
);
