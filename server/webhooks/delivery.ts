import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { events, instances, webhookEndpoints, webhookMessages } from '../db/schema';
import { eventEnvelope } from '../events/events';
import { newId } from '../db/ids';
import { rowsOf } from '../db/rows';
import { claimDue, releaseLeases } from '../db/leased-queue';
import { databaseFault } from '../db/errors';
import { guardedRequest, outboundNetwork, OutboundTimeout, targetPolicy } from '../http/outbound';
import { TargetRefused } from '../infra/ssrf';
import { signingSecrets } from './webhook-endpoints';
import { DELIVERY_TIMEOUT_MS, MAX_RETRY_AFTER_MS, RESPONSE_KEEP_BYTES, RETRY_SCHEDULE_MS } from './policy';
import { signatureHeader } from './signing';
import { count as countMetric } from '../analytics/metrics';
import { attemptRecordedSql } from './statements';

type MessageRow = typeof webhookMessages.$inferSelect;
export type DeliveryDeps = Pick<Deps, 'db' | 'clock' | 'cipher' | 'config' | 'dns' | 'testTrustedCas' | 'logger' | 'metrics'>;

/** How long a claim lasts: longer than a delivery can take, so only a dead worker's claim expires. */
export const DEFAULT_LEASE_MS = 60_000;

/** Claims up to `limit` due messages for this worker (server/db/leased-queue.ts), counting the ones taken over as redeliveries. */
export async function claimDueMessages(
  deps: Pick<Deps, 'db' | 'clock' | 'metrics'>,
  limit: number,
  leaseMs = DEFAULT_LEASE_MS,
): Promise<MessageRow[]> {
  const claimed = await claimDue(deps.db, webhookMessages, { now: deps.clock.now(), limit, leaseMs });
  const reclaimed = claimed.filter((m) => m.reclaimed).length;
  if (reclaimed) deps.metrics.webhookRedeliveries.inc(reclaimed);
  return claimed.map(({ reclaimed: _, ...m }) => m);
}

/** Gives back the leases of claimed messages still pending (a worker stopping with deliveries unfinished). */
export const releaseClaims = (deps: Pick<Deps, 'db' | 'clock'>, ids: string[]) =>
  releaseLeases(deps.db, webhookMessages, ids, deps.clock.now());

interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  response: string;
  error: string | null;
  retryAfterMs: number | null;
}

export type Outcome = 'succeeded' | 'retrying' | 'failed' | 'gone' | 'endpoint_disabled' | 'superseded';

/** Retry-After as seconds or an HTTP date, in ms from now; null when absent or unreadable. */
function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return null;
  const ms = /^\d+$/.test(v.trim()) ? Number(v.trim()) * 1000 : Date.parse(v) - now;
  return Number.isFinite(ms) ? Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS) : null;
}

async function post(
  deps: DeliveryDeps,
  url: string,
  environment: 'test' | 'live',
  headers: Record<string, string>,
  body: string,
): Promise<AttemptResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  try {
    const res = await guardedRequest({
      url,
      headers,
      body,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      maxResponseBytes: RESPONSE_KEEP_BYTES,
      policy: targetPolicy(deps.config, environment),
      ...outboundNetwork(deps),
    });
    const throttled = res.status === 429 || res.status === 503;
    return {
      statusCode: res.status,
      durationMs: elapsed(),
      response: res.body,
      error: null,
      retryAfterMs: throttled ? parseRetryAfter(res.headers['retry-after'], Date.now()) : null,
    };
  } catch (e) {
    const error = e instanceof TargetRefused || e instanceof OutboundTimeout ? e.message : `Connection failed: ${(e as Error).message}`;
    return { statusCode: null, durationMs: elapsed(), response: '', error, retryAfterMs: null };
  }
}

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/** A claimed message with what its delivery needs; endpoint null when it was deleted meanwhile. */
export interface ClaimedDelivery {
  msg: MessageRow;
  endpoint: EndpointRow | null;
  event: typeof events.$inferSelect | null;
  environment: 'test' | 'live' | null;
}

/** Endpoint, event and instance environment of every claimed message, in one query. */
export async function loadDeliveries(deps: Pick<Deps, 'db'>, claimed: MessageRow[]): Promise<ClaimedDelivery[]> {
  if (claimed.length === 0) return [];
  const rows = await deps.db
    .select({ id: webhookMessages.id, endpoint: webhookEndpoints, event: events, environment: instances.environment })
    .from(webhookMessages)
    .leftJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookMessages.endpointId))
    .leftJoin(instances, eq(instances.id, webhookMessages.instanceId))
    .leftJoin(events, eq(events.id, webhookMessages.eventId))
    .where(
      inArray(
        webhookMessages.id,
        claimed.map((m) => m.id),
      ),
    );
  const byId = new Map(rows.map((r) => [r.id, r]));
  return claimed.map((msg) => {
    const r = byId.get(msg.id);
    return { msg, endpoint: r?.endpoint ?? null, event: r?.event ?? null, environment: r?.environment ?? null };
  });
}

/** Delivers one claimed message and records the attempt and the message's next state. */
export async function deliverMessage(deps: DeliveryDeps, d: ClaimedDelivery): Promise<Outcome> {
  const { msg, endpoint, event, environment } = d;
  if (!endpoint || !event || !environment || endpoint.disabled) {
    // Deliveries wait for no one: a disabled endpoint's messages fail, and can be recovered once it is enabled.
    await deps.db
      .update(webhookMessages)
      .set({ status: 'failed', nextAttemptAt: null, lockedUntil: null, updatedAt: deps.clock.now() })
      .where(and(eq(webhookMessages.id, msg.id), eq(webhookMessages.attempts, msg.attempts)));
    deps.metrics.webhookDeliveries.inc({ outcome: 'endpoint_disabled' });
    return 'endpoint_disabled';
  }
  const body = JSON.stringify(eventEnvelope(event));
  // Wall-clock time, not deps.clock: receivers compare it with their own clock (5-minute tolerance).
  const timestamp = Math.floor(Date.now() / 1000);
  const signed = {
    id: msg.id,
    timestamp: String(timestamp),
    signature: signatureHeader(signingSecrets(deps, endpoint, deps.clock.now()), msg.id, timestamp, body),
  };
  const result = await post(
    deps,
    endpoint.url,
    environment,
    {
      'content-type': 'application/json',
      'user-agent': 'Latchkey-Webhooks/1',
      'webhook-id': signed.id,
      'webhook-timestamp': signed.timestamp,
      'webhook-signature': signed.signature,
      // The same values under Svix's names, for receivers that verify with Svix or Clerk's verifyWebhook.
      ...(endpoint.svixHeaders ? { 'svix-id': signed.id, 'svix-timestamp': signed.timestamp, 'svix-signature': signed.signature } : {}),
    },
    body,
  );
  const outcome = await acknowledgeWhileClaimed(deps, msg, endpoint, result);
  deps.metrics.webhookDeliveries.inc({ outcome });
  deps.logger.debug({ message_id: msg.id, endpoint_id: endpoint.id, status: result.statusCode, outcome }, 'webhook attempt');
  return outcome;
}

/**
 * The attempt's outcome is known (the receiver answered, or did not): its record is tried
 * again while the database is unavailable, as long as the claim lasts, so an outage between
 * the POST and its record does not become a second delivery. Past the claim the message is
 * another worker's (and counted as a redelivery).
 */
async function acknowledgeWhileClaimed(deps: DeliveryDeps, msg: MessageRow, endpoint: EndpointRow, r: AttemptResult): Promise<Outcome> {
  const attemptId = newId('msga');
  for (let wait = 200; ; wait = Math.min(wait * 2, 2000)) {
    try {
      return await acknowledge(deps, msg, endpoint, r, attemptId);
    } catch (err) {
      if (databaseFault(err) !== 'unavailable' && databaseFault(err) !== 'busy') throw err;
      if (deps.clock.now() + wait + ACK_MARGIN_MS >= (msg.lockedUntil ?? 0)) throw err;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}

/** What is left of a claim when the last acknowledgement may be tried. */
const ACK_MARGIN_MS = 1000;

/**
 * Records the attempt and moves the message (and the endpoint's failure streak) on, in one
 * statement. A worker whose lease expired and was overtaken records its attempt but moves
 * nothing. The same `attemptId` again (a retry whose first try committed unseen) records nothing.
 */
async function acknowledge(
  deps: DeliveryDeps,
  msg: MessageRow,
  endpoint: EndpointRow,
  r: AttemptResult,
  attemptId: string,
): Promise<Outcome> {
  const now = deps.clock.now();
  const ok = r.statusCode !== null && r.statusCode >= 200 && r.statusCode < 300;
  const gone = r.statusCode === 410;
  const round = msg.roundAttempts + 1;
  const exhausted = round > RETRY_SCHEDULE_MS.length;
  const outcome: Outcome = ok ? 'succeeded' : gone ? 'gone' : exhausted ? 'failed' : 'retrying';
  const status = outcome === 'retrying' ? 'pending' : ok ? 'succeeded' : 'failed';
  const nextAttemptAt = outcome === 'retrying' ? now + (r.retryAfterMs ?? RETRY_SCHEDULE_MS[round - 1]!) : null;
  const result = await deps.db.execute(
    attemptRecordedSql({
      message: msg,
      endpoint,
      attempt: { id: attemptId, statusCode: r.statusCode, durationMs: r.durationMs, response: r.response, error: r.error },
      status,
      round,
      nextAttemptAt,
      now,
      endpointOutcome: ok ? 'ok' : gone ? 'gone' : 'failing',
    }),
  );
  const [row] = rowsOf<{ moved: number }>(result);
  if (Number(row?.moved ?? 0) === 0) return 'superseded';
  if (outcome !== 'retrying') await countMetric(deps, msg.instanceId, ok ? 'webhook_deliveries_succeeded' : 'webhook_deliveries_failed');
  return outcome;
}

/** Messages waiting to be delivered, for the queue-depth gauge. */
export async function pendingMessageCount(deps: Pick<Deps, 'db'>): Promise<number> {
  const [row] = await deps.db
    .select({ n: sql<number>`count(*)::int` })
    .from(webhookMessages)
    .where(eq(webhookMessages.status, 'pending'));
  return Number(row?.n ?? 0);
}
