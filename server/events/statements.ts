import { sql } from 'drizzle-orm';
import { statement, type Params } from '../db/prepared';
import { events, webhookEndpoints } from '../db/schema';

/** The events domain's hand-written statements (docs/development.md, "Data access"). */

/** Channel a committed fan-out notifies, so workers (in any process) wake at once instead of at their next poll. */
export const WEBHOOK_CHANNEL = 'latchkey_webhooks';

/** Wakes the webhook workers when the transaction commits (dropped if it rolls back). */
export const wakeWebhookWorkersSql = () => sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`;

/** The enabled endpoints of the event's instance that subscribe to its type (or to `*`): their ids. `typeJson`: `["<type>"]`. */
const subscribersOf = (v: Params<'instanceId' | 'typeJson'>) =>
  sql`select ${webhookEndpoints.id} from ${webhookEndpoints}
      where ${webhookEndpoints.instanceId} = ${v.instanceId} and ${webhookEndpoints.disabled} = false
        and (${webhookEndpoints.eventTypes} @> '["*"]'::jsonb or ${webhookEndpoints.eventTypes} @> ${v.typeJson}::jsonb)`;
const subscriberValues = (event: { instanceId: string; type: string }) => ({
  instanceId: event.instanceId,
  typeJson: JSON.stringify([event.type]),
});
export const subscribersSql = (event: { instanceId: string; type: string }) => subscribersOf(subscriberValues(event));

type EventValues = { id: string; instanceId: string; type: string; createdAt: number; data: Record<string, unknown> };
type EventColumn = 'id' | 'instanceId' | 'type' | 'data' | 'createdAt';
const eventValues = (event: EventValues) => ({
  id: event.id,
  instanceId: event.instanceId,
  type: event.type,
  data: JSON.stringify(event.data),
  createdAt: event.createdAt,
});
const eventInsertOf = (v: Params<EventColumn>) =>
  sql`insert into ${events} (id, instance_id, type, data, created_at)
      values (${v.id}, ${v.instanceId}, ${v.type}, ${v.data}::jsonb, ${v.createdAt})`;

/** The event's row written to the outbox. */
const eventInsert = statement<EventColumn>('event_insert', eventInsertOf);
export const eventInsertSql = (event: EventValues) => eventInsert(eventValues(event));

/** The event's insert, answering its subscribers' ids (subscribersSql) in the same statement. */
const insertAnsweringSubscribers = statement<EventColumn | 'typeJson'>(
  'event_insert_subscribers',
  (v) => sql`with inserted as (${eventInsertOf(v)}) ${subscribersOf(v)}`,
);
export const insertAnsweringSubscribersSql = (event: EventValues) =>
  insertAnsweringSubscribers({ ...eventValues(event), ...subscriberValues(event) });

/** The subscribers' ids as one json array, a read of a part (db/together.ts). */
const subscribersJson = statement<'instanceId' | 'typeJson'>(
  'event_subscribers_json',
  (v) => sql`(select coalesce(json_agg(s.id), '[]'::json) from (${subscribersOf(v)}) s)`,
);
export const subscribersJsonSql = (event: { instanceId: string; type: string }) => subscribersJson(subscriberValues(event));
