import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { prepared } from '../db/prepared';
import { webhookEndpoints, webhookMessages } from '../db/schema';
import { newId } from '../db/ids';

/** Channel a committed fan-out notifies, so workers (in any process) wake at once instead of at their next poll. */
export const WEBHOOK_CHANNEL = 'latchkey_webhooks';

const subscribersStatement = prepared((db) =>
  db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      and(
        eq(webhookEndpoints.instanceId, sql.placeholder('instanceId')),
        eq(webhookEndpoints.disabled, false),
        sql`(${webhookEndpoints.eventTypes} @> '["*"]'::jsonb or ${webhookEndpoints.eventTypes} @> ${sql.placeholder('typeList')}::jsonb)`,
      ),
    )
    .prepare('webhook_subscribers'),
);

export interface EventRef {
  id: string;
  instanceId: string;
  type: string;
  createdAt: number;
}

/**
 * One pending message per endpoint that subscribes to the event, written in the event's
 * transaction. webhook.test goes only to the endpoint it names, never to `*` subscribers.
 */
export async function fanOut(db: Db, event: EventRef, onlyEndpointId?: string): Promise<number> {
  const endpointIds =
    event.type === 'webhook.test'
      ? onlyEndpointId
        ? [onlyEndpointId]
        : []
      : (await subscribersStatement(db).execute({ instanceId: event.instanceId, typeList: JSON.stringify([event.type]) })).map((r) => r.id);
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
