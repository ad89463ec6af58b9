import { z } from 'zod';
import { WEBHOOK_MESSAGE_STATUSES } from '../db/schema';
import { EVENT_TYPES, type EventType } from '../events/types';
import { cursorPageSchema, pageQuery } from '../http/pagination';

const url = z.string().trim().min(1).max(2048).meta({
  // What the document can say of the target checks; see checkTargetUrl.
  pattern: '^https?://[^\\s/?#@]+(?:[/?#][^\\s]*)?$',
  description:
    'An absolute http(s) URL without credentials (https on live instances: 422 https_required) whose host is not private, loopback or link-local, by address or by name (422 private_address).',
});
const description = z.string().max(512);
/** Checked against the event catalog by the domain (422 unknown_event_type naming the type). */
const eventTypes = z
  .array(
    z
      .string()
      .min(1)
      .max(128)
      .meta({ enum: ['*', ...EVENT_TYPES] }),
  )
  .min(1)
  .max(100);

export const createEndpointBody = z.strictObject({
  url,
  description: description.optional(),
  event_types: eventTypes.default(['*']),
  disabled: z.boolean().optional(),
  svix_headers: z.boolean().optional(),
});

export const updateEndpointBody = z.strictObject({
  url: url.optional(),
  description: description.optional(),
  event_types: eventTypes.optional(),
  disabled: z.boolean().optional(),
  svix_headers: z.boolean().optional(),
});

export const endpointSchema = z
  .object({
    object: z.literal('webhook_endpoint'),
    id: z.string(),
    url: z.string(),
    description: z.string(),
    event_types: z.array(z.string()),
    disabled: z.boolean(),
    /** `gone` (the endpoint answered 410), `failing` (5 days of failures), null when disabled by hand or enabled. */
    disabled_reason: z.enum(['gone', 'failing']).nullable(),
    failing_since: z.number().int().nullable(),
    /** Deliveries also carry svix-id, svix-timestamp and svix-signature (same values), for Svix/Clerk verifiers. */
    svix_headers: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'WebhookEndpoint' });

export const createdEndpointSchema = endpointSchema.extend({ secret: z.string() });

export const deletedEndpointSchema = z.object({ object: z.literal('webhook_endpoint'), id: z.string(), deleted: z.literal(true) });

export const secretSchema = z.object({
  object: z.literal('webhook_endpoint_secret'),
  secret: z.string(),
  previous_secret_expires_at: z.number().int().nullable(),
});

const attemptSchema = z.object({
  object: z.literal('webhook_attempt'),
  id: z.string(),
  url: z.string(),
  status_code: z.number().int().nullable(),
  duration_ms: z.number().int(),
  response: z.string(),
  error: z.string().nullable(),
  created_at: z.number().int(),
});

export const messageSchema = z
  .object({
    object: z.literal('webhook_message'),
    id: z.string(),
    endpoint_id: z.string(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(WEBHOOK_MESSAGE_STATUSES),
    attempt_count: z.number().int(),
    next_attempt_at: z.number().int().nullable(),
    attempts: z.array(attemptSchema),
    /** What each attempt POSTed: the event envelope; null once the event is gone. */
    payload: z
      .object({
        object: z.literal('event'),
        id: z.string(),
        type: z.string(),
        timestamp: z.number().int(),
        instance_id: z.string(),
        data: z.record(z.string(), z.unknown()),
      })
      .nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'WebhookMessage' });

export const listEndpointsQuery = z.strictObject({ ...pageQuery });
export const listDeliveriesQuery = z.strictObject({ ...pageQuery, status: z.enum(WEBHOOK_MESSAGE_STATUSES).optional() });

export const recoverBody = z
  .strictObject({
    /** Failed messages created at or after this time (ms) are queued again. */
    since: z.number().int().min(0),
    /** ...and before this one, when given. */
    until: z.number().int().min(0).optional(),
  })
  .refine((v) => v.until === undefined || v.until > v.since, {
    message: 'must be later than since',
    path: ['until'],
    params: { reason: 'before_since' },
  })
  .meta({ description: 'until, when given, must be later than since (422 before_since).' });

export const recoverySchema = z.object({ object: z.literal('webhook_recovery'), endpoint_id: z.string(), requeued: z.number().int() });

export const endpointListSchema = cursorPageSchema(endpointSchema);
export const messageListSchema = cursorPageSchema(messageSchema);

/** A test event: webhook.test without `event_type`, else an example of that type. */
export const testEventBody = z.strictObject({
  event_type: z
    .enum(EVENT_TYPES.filter((t) => t !== 'webhook.test') as [Exclude<EventType, 'webhook.test'>, ...Exclude<EventType, 'webhook.test'>[]])
    .optional(),
});
