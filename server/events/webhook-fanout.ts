import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { events, webhookEndpoints, webhookMessages } from '../db/schema';
import { newId } from '../db/ids';

/** Channel a committed fan-out notifies, so workers (in any process) wake at once instead of at their next poll. */
export const WEBHOOK_CHANNEL = 'latchkey_webhooks';

/** The enabled endpoints of the event's instance that subscribe to its type (or to `*`). */
const subscribers = (db: Db, event: Pick<EventRef, 'instanceId' | 'type'>) =>
  db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.instanceId, event.instanceId),
        eq(webhookEndpoints.disabled, false),
        sql`(${webhookEndpoints.eventTypes} @> '["*"]'::jsonb or ${webhookEndpoints.eventTypes} @> ${JSON.stringify([event.type])}::jsonb)`,
      ),
    );

export interface EventRef {
  id: string;
  instanceId: string;
  type: string;
  createdAt: number;
}

/**
 * Writes the event and finds its subscribers in one statement (a round trip less on every
 * change that emits one), then queues one pending message per subscribed endpoint, in the
 * caller's transaction.
 */
export async function insertAndFanOut(db: Db, event: EventRef & { data: Record<string, unknown> }): Promise<number> {
  const insert = db.insert(events).values({ id: event.id, instanceId: event.instanceId, type: event.type, data: event.data, createdAt: event.createdAt });
  const found = rowsOf<{ id: string }>(await db.execute(sql`with inserted as (${insert.getSQL()}) ${subscribers(db, event).getSQL()}`));
  return queueMessages(db, event, found.map((r) => r.id));
}

/** One pending message per endpoint, written in the event's transaction. */
export async function queueMessages(db: Db, event: EventRef, endpointIds: string[]): Promise<number> {
  if (endpointIds.length === 0) return 0;
  await db.insert(webhookMessages).values(
    endpointIds.map((endpointId) => ({
      id: newId('msg'),
      instanceId: event.instanceId,
      endpointId,
      eventId: event.id,
      eventType: event.type,
      status: 'pending' as const,
      nextAttemptAt: event.createdAt,
      createdAt: event.createdAt,
      updatedAt: event.createdAt,
    })),
  );
  // Delivered to listeners when the transaction commits, and dropped if it rolls back.
  await db.execute(sql`select pg_notify(${WEBHOOK_CHANNEL}, '')`);
  return endpointIds.length;
}
