import { sql } from 'drizzle-orm';
import { events, webhookEndpoints } from '../db/schema';

/** The events domain's hand-written statements (docs/development.md, "Data access"). */

/** Channel a committed fan-out notifies, so workers (in any process) wake at once instead of at their next poll. */
export const WEBHOOK_CHANNEL = 'latchkey_webhooks';

/** Wakes the webhook workers when the transaction commits (dropped if it rolls back). */
export const wakeWebhookWorkersSql = () => sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`;

/** The enabled endpoints of the event's instance that subscribe to its type (or to `*`): their ids. */
export const subscribersSql = (event: { instanceId: string; type: string }) =>
  sql`select ${webhookEndpoints.id} from ${webhookEndpoints}
      where ${webhookEndpoints.instanceId} = ${event.instanceId} and ${webhookEndpoints.disabled} = false
        and (${webhookEndpoints.eventTypes} @> '["*"]'::jsonb or ${webhookEndpoints.eventTypes} @> ${JSON.stringify([event.type])}::jsonb)`;

/** The event's row written to the outbox. */
export const eventInsertSql = (event: { id: string; instanceId: string; type: string; createdAt: number; data: Record<string, unknown> }) =>
  sql`insert into ${events} (id, instance_id, type, data, created_at)
      values (${event.id}, ${event.instanceId}, ${event.type}, ${JSON.stringify(event.data)}::jsonb, ${event.createdAt})`;

/** The event's insert, answering its subscribers' ids (subscribersSql) in the same statement. */
export const insertAnsweringSubscribersSql = (event: Parameters<typeof eventInsertSql>[0]) =>
  sql`with inserted as (${eventInsertSql(event)}) ${subscribersSql(event)}`;

/** The subscribers' ids as one json array, a read of a part (db/together.ts). */
export const subscribersJsonSql = (event: { instanceId: string; type: string }) =>
  sql`(select coalesce(json_agg(s.id), '[]'::json) from (${subscribersSql(event)}) s)`;
