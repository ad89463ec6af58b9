import { and, desc, eq, inArray, isNull, or, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { isId, newId } from '../db/ids';
import { prepared } from '../db/prepared';
import { billingPlans, billingProcessorEvents, billingSubscriptions, organizations, users } from '../db/schema';
import { emitEvent } from '../events/events';
import { AppError } from '../http/errors';
import { cursorList, newestFirst, type Keyset } from '../http/cursor-list';
import { instanceContext } from '../instances/instances';
import { planForPrice, type PlanRow } from './plans';
import { SignatureInvalid, type SubscriptionSnapshot } from './processor';
import { processorSetup } from './settings';
import { ENTITLED_STATUSES } from './statements';

type SubscriptionRow = typeof billingSubscriptions.$inferSelect;
type PlanRef = Pick<PlanRow, 'id' | 'key' | 'name' | 'features'> | null;

const subscriptionView = (r: SubscriptionRow, plan: PlanRef) => ({
  object: 'subscription' as const,
  id: r.id,
  subject: r.subject,
  plan: plan ? { id: plan.id, key: plan.key, name: plan.name, features: plan.features } : null,
  status: r.status,
  current_period_start: r.currentPeriodStart,
  current_period_end: r.currentPeriodEnd,
  cancel_at: r.cancelAt,
  canceled_at: r.canceledAt,
  deleted: r.deletedAt !== null,
  processor: r.processor,
  processor_subscription_id: r.processorSubscriptionId,
  processor_customer_id: r.processorCustomerId,
  processor_price_id: r.processorPriceId,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
export type SubscriptionView = ReturnType<typeof subscriptionView>;

const planColumns = { id: billingPlans.id, key: billingPlans.key, name: billingPlans.name, features: billingPlans.features };

const withPlans = (db: Db) =>
  db
    .select({ s: billingSubscriptions, p: planColumns })
    .from(billingSubscriptions)
    .leftJoin(billingPlans, eq(billingPlans.id, billingSubscriptions.planId));

const viewOf = (r: { s: SubscriptionRow; p: PlanRef | { id: null } }) => subscriptionView(r.s, r.p && r.p.id ? (r.p as PlanRef) : null);

export async function listSubscriptions(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  q: { limit: number; starting_after?: string; subject?: string; status?: string },
) {
  const filters: (SQL | undefined)[] = [eq(billingSubscriptions.instanceId, instanceId)];
  if (q.subject) filters.push(eq(billingSubscriptions.subject, q.subject));
  if (q.status) filters.push(eq(billingSubscriptions.status, q.status));
  const rows = (k: Keyset) =>
    withPlans(deps.db)
      .where(and(...filters, k.after))
      .orderBy(k.orderBy)
      .limit(k.limit);
  return cursorList(q, newestFirst(billingSubscriptions.id), rows, viewOf, (r) => r.s.id);
}

/** The subject's subscription that counts now: the newest entitled one, else the newest undeleted one. */
export async function currentSubscription(db: Db, instanceId: string, subject: string): Promise<SubscriptionView | null> {
  const rows = await withPlans(db)
    .where(
      and(
        eq(billingSubscriptions.instanceId, instanceId),
        eq(billingSubscriptions.subject, subject),
        isNull(billingSubscriptions.deletedAt),
      ),
    )
    .orderBy(desc(billingSubscriptions.id))
    .limit(20);
  const entitled = rows.find((r) => (ENTITLED_STATUSES as readonly string[]).includes(r.s.status));
  const row = entitled ?? rows[0];
  return row ? viewOf(row) : null;
}

async function subjectExists(db: Db, instanceId: string, subject: string) {
  if (isId('user', subject)) {
    const [u] = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, subject), eq(users.instanceId, instanceId)));
    return Boolean(u);
  }
  if (isId('org', subject)) {
    const [o] = await db
      .select({ id: organizations.id })
      .from(organizations)
      .where(and(eq(organizations.id, subject), eq(organizations.instanceId, instanceId)));
    return Boolean(o);
  }
  return false;
}

export type WebhookOutcome = { received: true; applied: boolean };

/**
 * Receives one processor webhook: verifies its signature over the raw body (400, nothing
 * changed), then applies it once (a redelivered event id changes nothing). A subscription
 * event older than the last one applied to that subscription is recorded but not applied,
 * and a deleted subscription stays deleted, so out-of-order delivery never moves it back.
 */
export async function receiveProcessorWebhook(
  deps: Pick<Deps, 'db' | 'clock' | 'cipher' | 'config' | 'dns' | 'caches'>,
  processorName: string,
  instanceId: string,
  raw: { body: string; header(name: string): string | undefined },
): Promise<WebhookOutcome> {
  const instance = await instanceContext(deps, instanceId).catch(() => null);
  const setup = instance ? await processorSetup(deps, instance) : null;
  if (!instance || !setup || setup.processor.name !== processorName || !setup.webhookSecret) throw new AppError('NOT_FOUND');
  let event;
  try {
    event = setup.processor.parseWebhook(raw.body, raw.header, setup.webhookSecret, deps.clock.now());
  } catch (err) {
    if (err instanceof SignatureInvalid) {
      throw new AppError('MALFORMED_REQUEST', {
        message: 'The webhook signature is invalid or too old.',
        meta: { reason: 'signature_invalid' },
      });
    }
    throw err;
  }
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const fresh = await tx
      .insert(billingProcessorEvents)
      .values({ instanceId, processor: processorName, eventId: event.id, receivedAt: now })
      .onConflictDoNothing()
      .returning({ id: billingProcessorEvents.eventId });
    if (fresh.length === 0 || !event.change) return { received: true as const, applied: false };
    const applied = await applyChange(
      { db: tx, clock: deps.clock },
      instanceId,
      processorName,
      event.createdAt,
      event.change.kind,
      event.change.subscription,
    );
    return { received: true as const, applied };
  });
}

async function applyChange(
  d: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  processor: string,
  eventCreatedAt: number,
  kind: 'created' | 'updated' | 'deleted',
  snap: SubscriptionSnapshot,
): Promise<boolean> {
  const { db } = d;
  const now = d.clock.now();
  const [current] = await db
    .select()
    .from(billingSubscriptions)
    .where(
      and(
        eq(billingSubscriptions.instanceId, instanceId),
        eq(billingSubscriptions.processor, processor),
        eq(billingSubscriptions.processorSubscriptionId, snap.processorSubscriptionId),
      ),
    )
    .for('update');
  // Never backwards: a deleted subscription stays deleted, an older event loses to a newer
  // one, and `created` (the first state there is) never overwrites a known one.
  if (current && (current.deletedAt !== null || eventCreatedAt < current.processorUpdatedAt || kind === 'created')) return false;

  const subject = current?.subject ?? snap.metadata.latchkey_subject;
  if (!subject || !(await subjectExists(db, instanceId, subject))) return false;
  const plan = await planForPrice(db, instanceId, snap.processorPriceId, snap.metadata.latchkey_plan_id);
  const fields = {
    planId: plan?.id ?? null,
    status: snap.status,
    currentPeriodStart: snap.currentPeriodStart,
    currentPeriodEnd: snap.currentPeriodEnd,
    cancelAt: snap.cancelAt,
    canceledAt: snap.canceledAt,
    processorCustomerId: snap.processorCustomerId,
    processorPriceId: snap.processorPriceId,
    processorUpdatedAt: eventCreatedAt,
    deletedAt: kind === 'deleted' ? now : null,
    updatedAt: now,
  };
  let row: SubscriptionRow;
  if (current) {
    [row] = (await db.update(billingSubscriptions).set(fields).where(eq(billingSubscriptions.id, current.id)).returning()) as [
      SubscriptionRow,
    ];
  } else {
    [row] = (await db
      .insert(billingSubscriptions)
      .values({
        id: newId('sub'),
        instanceId,
        subject,
        processor,
        processorSubscriptionId: snap.processorSubscriptionId,
        createdAt: now,
        ...fields,
      })
      .returning()) as [SubscriptionRow];
  }
  // A deletion seen before its creation leaves a tombstone only: there is nothing the customer knew of to delete.
  if (!current && kind === 'deleted') return true;
  const type = kind === 'deleted' ? 'subscription.deleted' : current ? 'subscription.updated' : 'subscription.created';
  await emitEvent(d, instanceId, type, subscriptionView(row, plan));
  return true;
}

const entitledPlans = prepared((db) =>
  db
    .select({ subject: billingSubscriptions.subject, key: billingPlans.key, features: billingPlans.features })
    .from(billingSubscriptions)
    .innerJoin(billingPlans, eq(billingPlans.id, billingSubscriptions.planId))
    .where(
      and(
        eq(billingSubscriptions.instanceId, sql.placeholder('instanceId')),
        or(eq(billingSubscriptions.subject, sql.placeholder('userId')), eq(billingSubscriptions.subject, sql.placeholder('orgId'))),
        isNull(billingSubscriptions.deletedAt),
        inArray(billingSubscriptions.status, [...ENTITLED_STATUSES]),
      ),
    )
    .orderBy(desc(billingSubscriptions.id))
    .prepare('billing_claims'),
);

/**
 * Compact plan and feature claims for a session JWT, Clerk's shape: `pla` "u:<plan>,o:<plan>"
 * and `fea` "u:<feature>,…,o:<feature>,…" for the user and the active organization, read
 * afresh at every signing. Absent when neither has an entitled subscription.
 */
export async function billingClaims(
  db: Db,
  instanceId: string,
  userId: string,
  orgId: string | null,
): Promise<{ pla?: string; fea?: string }> {
  return claimsOfPlans(await entitledPlans(db).execute({ instanceId, userId, orgId: orgId ?? '' }), userId, orgId);
}

/** An entitled subscription's plan, as billingClaims reads them (newest subscription first). */
export interface EntitledPlan {
  subject: string;
  key: string;
  features: string[];
}

/** The pla/fea claims of entitled plans (newest subscription first) for a user and their active organization. */
export function claimsOfPlans(rows: readonly EntitledPlan[], userId: string, orgId: string | null): { pla?: string; fea?: string } {
  if (rows.length === 0) return {};
  const pick = (subject: string | null) => (subject ? rows.find((r) => r.subject === subject) : undefined);
  const parts = [
    ['u', pick(userId)],
    ['o', pick(orgId)],
  ] as const;
  const pla = parts.filter(([, r]) => r).map(([p, r]) => `${p}:${r!.key}`);
  const fea = parts.flatMap(([p, r]) => (r ? r.features.map((f) => `${p}:${f}`) : []));
  return { pla: pla.join(','), ...(fea.length ? { fea: fea.join(',') } : {}) };
}
