import type { Db } from '../db/client';
import { rowsOf } from '../db/rows';
import { events, webhookMessages } from '../db/schema';
import { newId } from '../db/ids';
import { fromJson, type Part } from '../db/together';
import { insertRows } from '../db/insert-rows';
import { runStatement } from '../db/prepared';
import { eventInsertSql, insertAnsweringSubscribersSql, subscribersJsonSql, subscribersSql, wakeWebhookWorkersSql } from './statements';

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
  const found = rowsOf<{ id: string }>(await runStatement(db, insertAnsweringSubscribersSql(event)));
  return queueMessages(
    db,
    event,
    found.map((r) => r.id),
  );
}

/**
 * insertAndFanOut as a part of a statement of several writes (db/together.ts): the event's
 * insert and the ids of its subscribers, then their messages.
 */
export function fanOutPart(event: EventRef & { data: Record<string, unknown> }): Part {
  return {
    writes: [eventInsertSql(event)],
    reads: { subscribers: subscribersJsonSql(event) },
    after: (db, answers) => queueMessages(db, event, fromJson<string[]>(answers.subscribers)),
  };
}

/**
 * Many events of one type at once (an import's batch): one insert of the events, one query
 * for their subscribers, one insert of the messages.
 */
export async function insertManyAndFanOut(
  db: Db,
  head: Omit<EventRef, 'id'>,
  list: { id: string; data: Record<string, unknown> }[],
): Promise<void> {
  if (list.length === 0) return;
  await insertRows(
    db,
    events,
    list.map((e) => ({ ...head, id: e.id, data: e.data })),
  );
  const endpointIds = rowsOf<{ id: string }>(await db.execute(subscribersSql(head))).map((r) => r.id);
  if (endpointIds.length === 0) return;
  await db.insert(webhookMessages).values(
    list.flatMap((e) =>
      endpointIds.map((endpointId) => ({
        id: newId('msg'),
        instanceId: head.instanceId,
        endpointId,
        eventId: e.id,
        eventType: head.type,
        status: 'pending' as const,
        nextAttemptAt: head.createdAt,
        createdAt: head.createdAt,
        updatedAt: head.createdAt,
      })),
    ),
  );
  await db.execute(wakeWebhookWorkersSql());
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
  await db.execute(wakeWebhookWorkersSql());
  return endpointIds.length;
}
