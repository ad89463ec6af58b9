import { and, asc, eq, gte, inArray, lt, ne } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { events, webhookAttempts, webhookMessages, type WebhookMessageStatus } from '../db/schema';
import { emitEvent, eventEnvelope } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import type { EventType } from '../events/types';
import { exampleEventData } from './examples';
import { cursorList, newestFirst, tableRows, type Keyset } from '../http/cursor-list';
import { endpointView, loadEndpoint, type ActorContext } from './webhook-endpoints';

type MessageRow = typeof webhookMessages.$inferSelect;
type AttemptRow = typeof webhookAttempts.$inferSelect;
type EventRow = typeof events.$inferSelect;

const attemptView = (a: AttemptRow) => ({
  object: 'webhook_attempt' as const,
  id: a.id,
  url: a.url,
  status_code: a.statusCode,
  duration_ms: a.durationMs,
  /** The first 4 KiB of the response body. */
  response: a.response,
  error: a.error,
  created_at: a.createdAt,
});

/** `event`: what each attempt sent (the event's envelope); null once the event is gone. */
const messageView = (m: MessageRow, attempts: AttemptRow[], event: EventRow | null) => ({
  object: 'webhook_message' as const,
  id: m.id,
  endpoint_id: m.endpointId,
  event_id: m.eventId,
  event_type: m.eventType,
  status: m.status,
  attempt_count: m.attempts,
  next_attempt_at: m.status === 'pending' ? m.nextAttemptAt : null,
  attempts: attempts.map(attemptView),
  /** The body each attempt POSTed: the event's envelope (null once the event is gone). */
  payload: event ? eventEnvelope(event) : null,
  created_at: m.createdAt,
  updated_at: m.updatedAt,
});

/** The events of messages, by id. */
async function eventsOf(deps: Pick<Deps, 'db'>, rows: MessageRow[]) {
  if (rows.length === 0) return new Map<string, EventRow>();
  const found = await deps.db
    .select()
    .from(events)
    .where(inArray(events.id, [...new Set(rows.map((r) => r.eventId))]));
  return new Map(found.map((e) => [e.id, e]));
}

async function withAttempts(deps: Pick<Deps, 'db'>, rows: MessageRow[]) {
  if (rows.length === 0) return new Map<string, AttemptRow[]>();
  const attempts = await deps.db
    .select()
    .from(webhookAttempts)
    .where(
      inArray(
        webhookAttempts.messageId,
        rows.map((r) => r.id),
      ),
    )
    .orderBy(asc(webhookAttempts.id));
  const byMessage = new Map<string, AttemptRow[]>();
  for (const a of attempts) byMessage.set(a.messageId, [...(byMessage.get(a.messageId) ?? []), a]);
  return byMessage;
}

/** An endpoint's messages, newest first, each with every attempt. */
export async function listDeliveries(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  endpointId: string,
  q: { limit: number; starting_after?: string; status?: WebhookMessageStatus },
) {
  await loadEndpoint(deps.db, instanceId, endpointId);
  const messages = tableRows(
    deps.db,
    webhookMessages,
    eq(webhookMessages.endpointId, endpointId),
    q.status ? eq(webhookMessages.status, q.status) : undefined,
  );
  const withTheirAttempts = async (k: Keyset) => {
    const rows = await messages(k);
    const [attempts, sent] = await Promise.all([withAttempts(deps, rows), eventsOf(deps, rows)]);
    return rows.map((m) => ({ m, attempts: attempts.get(m.id) ?? [], event: sent.get(m.eventId) ?? null }));
  };
  return cursorList(
    q,
    newestFirst(webhookMessages.id),
    withTheirAttempts,
    (r) => messageView(r.m, r.attempts, r.event),
    (r) => r.m.id,
  );
}

async function getMessage(deps: Pick<Deps, 'db'>, id: string) {
  const [row] = await deps.db.select().from(webhookMessages).where(eq(webhookMessages.id, id));
  return messageView(row!, (await withAttempts(deps, [row!])).get(id) ?? [], (await eventsOf(deps, [row!])).get(row!.eventId) ?? null);
}

function assertEnabled(endpoint: { disabled: boolean }) {
  if (endpoint.disabled) {
    throw new AppError('CONFLICT', {
      message: 'The endpoint is disabled; enable it before redelivering.',
      meta: { reason: 'endpoint_disabled' },
    });
  }
}

/** Queues a message again now, with a fresh retry schedule (its webhook-id stays the same). */
export async function retryMessage(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  endpointId: string,
  messageId: string,
  ctx: ActorContext,
) {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    assertEnabled(await loadEndpoint(tx, instanceId, endpointId));
    const [moved] = await tx
      .update(webhookMessages)
      .set({ status: 'pending', roundAttempts: 0, nextAttemptAt: now, updatedAt: now })
      .where(and(eq(webhookMessages.id, messageId), eq(webhookMessages.endpointId, endpointId)))
      .returning({ id: webhookMessages.id });
    if (!moved) throw notFound('webhook message');
    await audit({ db: tx, clock: deps.clock }, { instanceId, ...ctx, action: 'webhook_message.retried', target: messageId });
  });
  return getMessage(deps, messageId);
}

/** Queues again every failed message of the endpoint created at or after `since` (and before `until`). */
export async function recoverFailed(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  endpointId: string,
  range: { since: number; until?: number },
  ctx: ActorContext,
) {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    assertEnabled(await loadEndpoint(tx, instanceId, endpointId));
    const requeued = await tx
      .update(webhookMessages)
      .set({ status: 'pending', roundAttempts: 0, nextAttemptAt: now, updatedAt: now })
      .where(
        and(
          eq(webhookMessages.endpointId, endpointId),
          eq(webhookMessages.status, 'failed'),
          gte(webhookMessages.createdAt, range.since),
          range.until !== undefined ? lt(webhookMessages.createdAt, range.until) : undefined,
        ),
      )
      .returning({ id: webhookMessages.id });
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId,
        ...ctx,
        action: 'webhook_endpoint.recovered',
        target: endpointId,
        details: { since: range.since, until: range.until ?? null, count: requeued.length },
      },
    );
    return { object: 'webhook_recovery' as const, endpoint_id: endpointId, requeued: requeued.length };
  });
}

/**
 * Sends a test event to this endpoint only and returns its message: webhook.test (the
 * endpoint as its data), or `eventType` with example data (./examples.ts), which the
 * endpoint must subscribe to.
 */
export async function sendTestEvent(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  endpointId: string,
  eventType?: Exclude<EventType, 'webhook.test'>,
) {
  const eventId = await deps.db.transaction(async (tx) => {
    const endpoint = await loadEndpoint(tx, instanceId, endpointId);
    assertEnabled(endpoint);
    if (!eventType)
      return emitEvent({ db: tx, clock: deps.clock }, instanceId, 'webhook.test', endpointView(endpoint), { onlyEndpointId: endpointId });
    if (!endpoint.eventTypes.includes('*') && !endpoint.eventTypes.includes(eventType)) {
      throw validationError('event_type', 'not_subscribed', `This endpoint does not subscribe to ${eventType}.`);
    }
    return emitEvent({ db: tx, clock: deps.clock }, instanceId, eventType, exampleEventData(eventType), { onlyEndpointId: endpointId });
  });
  const [row] = await deps.db
    .select()
    .from(webhookMessages)
    .where(and(eq(webhookMessages.eventId, eventId), eq(webhookMessages.endpointId, endpointId)));
  return messageView(row!, [], (await eventsOf(deps, [row!])).get(row!.eventId) ?? null);
}

/** How long delivered and failed messages (with their attempts) stay in the delivery log. */
export const MESSAGE_RETENTION_MS = 30 * 24 * 3_600_000;

/** Drops finished messages older than the retention; pending ones always stay. Run periodically. */
export async function purgeWebhookMessages(deps: Pick<Deps, 'db' | 'clock'>): Promise<number> {
  const gone = await deps.db
    .delete(webhookMessages)
    .where(and(ne(webhookMessages.status, 'pending'), lt(webhookMessages.updatedAt, deps.clock.now() - MESSAGE_RETENTION_MS)))
    .returning({ id: webhookMessages.id });
  return gone.length;
}
