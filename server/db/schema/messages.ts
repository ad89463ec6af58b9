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
    index('emails_pending_idx')
      .on(t.status, t.updatedAt)
      .where(sql`${t.status} <> 'delivered'`),
  ],
);

/**
 * An SMS's delivery status: `queued` until the provider accepts it (retried meanwhile),
 * `sent` once accepted, then `delivered` or `undelivered` as the carrier reports; `failed`
 * when the provider refused it or every retry failed.
 */
export const SMS_STATUSES = ['queued', 'sent', 'delivered', 'undelivered', 'failed'] as const;
export type SmsStatus = (typeof SMS_STATUSES)[number];

/**
 * Every SMS (the `sms` resource). Without a provider (server/sms) it stays in the dev outbox
 * (`delivered` at once); with one it is written `queued` and delivered after the commit.
 * The row is the delivery's state machine: `attempts` is its version (a delivery claims it by
 * bumping it), and `next_attempt_at` is when a `queued` one is due, first at once, then as a
 * retry or when a claim's lease lapses (its process stopped between two writes).
 */
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
    status: text('status', { enum: SMS_STATUSES }).notNull(),
    deliveredBy: text('delivered_by', { enum: ['outbox', 'twilio'] }).notNull(),
    error: text('error'),
    /** The provider's error code (Twilio's `21211`, `30003`, …) or ours (`http_503`, `timeout`). */
    errorCode: text('error_code'),
    /** The provider's id of the message (Twilio's `SM…`): its status callbacks name it. */
    providerMessageId: text('provider_message_id'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: millis('next_attempt_at'),
    ...timestamps(),
  },
  (t) => [
    index('sms_messages_instance_idx').on(t.instanceId, t.id),
    index('sms_messages_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'queued'`),
    index('sms_messages_provider_idx').on(t.providerMessageId),
  ],
);
