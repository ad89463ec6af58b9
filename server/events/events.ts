import { eq, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { events } from '../db/schema';
import { newId } from '../db/ids';
import { fanOutPart, insertAndFanOut, insertManyAndFanOut, queueMessages } from './webhook-fanout';
import type { Part } from '../db/together';
import type { EventType } from './types';

/**
 * Writes an event to the outbox, with one webhook message per subscribed endpoint. Call it
 * with the transaction of the change, so the change, its event and its deliveries commit
 * together or not at all. `onlyEndpointId`: a test event's single recipient.
 */
export async function emitEvent(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  type: EventType,
  data: Record<string, unknown>,
  opts: { onlyEndpointId?: string } = {},
) {
  const id = newId('evt');
  const createdAt = deps.clock.now();
  if (type === 'webhook.test' || opts.onlyEndpointId) {
    // A test (webhook.test, or an example of another type) goes only to the endpoint it names, never to `*` subscribers.
    await deps.db.insert(events).values({ id, instanceId, type, data, createdAt });
    await queueMessages(deps.db, { id, instanceId, type, createdAt }, opts.onlyEndpointId ? [opts.onlyEndpointId] : []);
  } else {
    await insertAndFanOut(deps.db, { id, instanceId, type, createdAt, data });
  }
  return id;
}

/** emitEvent for many changes of one type in one transaction (an import's batch), in the order given. */
export async function emitEvents(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  type: Exclude<EventType, 'webhook.test'>,
  data: Record<string, unknown>[],
) {
  await insertManyAndFanOut(
    deps.db,
    { instanceId, type, createdAt: deps.clock.now() },
    data.map((d) => ({ id: newId('evt'), data: d })),
  );
}

/** emitEvent as a part of a statement of several writes (db/together.ts); `id` is the event's. */
export function eventPart(
  deps: Pick<Deps, 'clock'>,
  instanceId: string,
  type: Exclude<EventType, 'webhook.test'>,
  data: Record<string, unknown>,
): Part & { id: string } {
  const id = newId('evt');
  return { id, ...fanOutPart({ id, instanceId, type, createdAt: deps.clock.now(), data }) };
}

export const eventEnvelope = (e: typeof events.$inferSelect) => ({
  object: 'event' as const,
  id: e.id,
  type: e.type,
  timestamp: e.createdAt,
  instance_id: e.instanceId,
  data: e.data,
});

/** Which event types this instance has emitted, how often, and when first and last. */
export async function emittedEventTypes(deps: Pick<Deps, 'db'>, instanceId: string) {
  const rows = await deps.db
    .select({
      type: events.type,
      count: sql<number>`count(*)::int`,
      first: sql<string>`min(${events.createdAt})`,
      last: sql<string>`max(${events.createdAt})`,
    })
    .from(events)
    .where(eq(events.instanceId, instanceId))
    .groupBy(events.type)
    .orderBy(events.type);
  return rows.map((r) => ({
    object: 'event_type' as const,
    type: r.type,
    count: Number(r.count),
    first_emitted_at: Number(r.first),
    last_emitted_at: Number(r.last),
  }));
}
