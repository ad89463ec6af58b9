import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef } from './instances';

/**
 * The waitlist of an instance in `sign_up_mode: waitlist` (`wle_…`): one entry per email
 * address (case-insensitive), pending → invited (a sign-up ticket was emailed; its secret
 * `tkt_…` is stored only as SHA-256) → completed (the invited person signed up, `user_id`),
 * or rejected.
 */
export const waitlistEntries = pgTable(
  'waitlist_entries',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    emailAddress: text('email_address').notNull(),
    /** The address lowercased: one entry per address. */
    emailKey: text('email_key').notNull(),
    status: text('status').$type<'pending' | 'invited' | 'completed' | 'rejected'>().notNull(),
    ticketDigest: text('ticket_digest'),
    ticketExpiresAt: millis('ticket_expires_at'),
    invitedAt: millis('invited_at'),
    /** The user the invited person became. */
    userId: text('user_id'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('waitlist_entries_email_uq').on(t.instanceId, t.emailKey),
    uniqueIndex('waitlist_entries_ticket_uq').on(t.ticketDigest),
    index('waitlist_entries_instance_idx').on(t.instanceId, t.id),
    index('waitlist_entries_status_idx').on(t.instanceId, t.status, t.id),
  ],
);
