import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';

export const MESSAGE_STATUSES = ['queued', 'delivered', 'failed'] as const;
/**
 * Every email the service sends (the `email` resource). Written with its email.created
 * event in one transaction, delivered after commit; `queued`/`failed` rows are retried.
 */
export const emails = pgTable(
  'emails',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id'),
    to: text('to_address').notNull(),
    from: text('from_address').notNull(),
    template: text('template').notNull(),
    locale: text('locale').notNull(),
    subject: text('subject').notNull(),
    html: text('html').notNull(),
    text: text('text').notNull(),
    /** The template variables it was rendered with. */
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    /** The channel carrying it: SMTP when SMTP_URL is set, else the dev outbox. */
    deliveredBy: text('delivered_by', { enum: ['smtp', 'outbox'] }).notNull(),
    error: text('error'),
    /** Delivery attempts so far; also the version a delivery claims the row with. */
    attempts: integer('attempts').notNull().default(0),
    /** When a failed email is tried again; null once delivered or given up. */
    nextAttemptAt: millis('next_attempt_at'),
    ...timestamps(),
  },
  (t) => [
    index('emails_instance_idx').on(t.instanceId, t.id),
    index('emails_pending_idx').on(t.status, t.updatedAt).where(sql`${t.status} <> 'delivered'`),
  ],
);

/** Every SMS (the `sms` resource). No provider yet: they stay in the dev outbox. */
export const smsMessages = pgTable(
  'sms_messages',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id'),
    to: text('to_number').notNull(),
    from: text('from_number'),
    template: text('template').notNull(),
    locale: text('locale').notNull(),
    body: text('body').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    deliveredBy: text('delivered_by', { enum: ['outbox'] }).notNull(),
    error: text('error'),
    ...timestamps(),
  },
  (t) => [index('sms_messages_instance_idx').on(t.instanceId, t.id)],
);
