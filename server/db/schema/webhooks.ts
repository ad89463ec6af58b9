import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef } from './instances';

/** A subscriber URL of an instance (`whep_`). Its signing secret must be recoverable: kept encrypted. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    url: text('url').notNull(),
    description: text('description').notNull().default(''),
    /** Event types, or ['*'] for all (webhook.test excepted: it only goes to the endpoint it names). */
    eventTypes: jsonb('event_types').$type<string[]>().notNull(),
    disabled: boolean('disabled').notNull().default(false),
    /** Also send svix-id/svix-timestamp/svix-signature copies of the headers (Clerk's verifyWebhook). */
    svixHeaders: boolean('svix_headers').notNull().default(false),
    /** Why the service disabled it: `gone` (410) or `failing` (5 days of failures); null when disabled by hand. */
    disabledReason: text('disabled_reason', { enum: ['gone', 'failing'] }),
    /** The whsec_ secret, encrypted with ENCRYPTION_KEY. */
    secretEnc: text('secret_enc').notNull(),
    /** The secret before the last rotation, still signing until previous_secret_expires_at. */
    previousSecretEnc: text('previous_secret_enc'),
    previousSecretExpiresAt: millis('previous_secret_expires_at'),
    /** Start of the current run of failed attempts; null after a success. */
    failingSince: millis('failing_since'),
    ...timestamps(),
  },
  (t) => [index('webhook_endpoints_instance_idx').on(t.instanceId, t.id)],
);

export const WEBHOOK_MESSAGE_STATUSES = ['pending', 'succeeded', 'failed'] as const;
export type WebhookMessageStatus = (typeof WEBHOOK_MESSAGE_STATUSES)[number];

/**
 * One event to one endpoint (`msg_`, the webhook-id of every attempt). Written in the
 * transaction of the event, so nothing is lost; claimed by a worker with a lease.
 */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: WEBHOOK_MESSAGE_STATUSES }).notNull(),
    /** Attempts ever made; also the version an acknowledgement checks. */
    attempts: integer('attempts').notNull().default(0),
    /** Attempts since it was last (re)queued: the position in the retry schedule. */
    roundAttempts: integer('round_attempts').notNull().default(0),
    nextAttemptAt: millis('next_attempt_at'),
    /** A worker holds it until then; after that (a killed worker) another may claim it. */
    lockedUntil: millis('locked_until'),
    ...timestamps(),
  },
  (t) => [
    index('webhook_messages_endpoint_idx').on(t.endpointId, t.id),
    index('webhook_messages_due_idx')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/** Every try of a message: when, the answer, how long, and the start of the response. */
export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: text('id').primaryKey(),
    messageId: text('message_id')
      .notNull()
      .references(() => webhookMessages.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** null when no HTTP answer came (refused target, timeout, connection error). */
    statusCode: integer('status_code'),
    durationMs: integer('duration_ms').notNull(),
    /** The first 4 KiB of the response body. */
    response: text('response').notNull().default(''),
    error: text('error'),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [index('webhook_attempts_message_idx').on(t.messageId, t.id)],
);
