import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { isId, newId } from '../db/ids';
import { billingPlans, type PlanPrice } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, notFound } from '../http/errors';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { uniqueViolation } from '../db/errors';

export type PlanRow = typeof billingPlans.$inferSelect;
type D = Pick<Deps, 'db' | 'clock'>;

const planView = (r: PlanRow) => ({
  object: 'plan' as const,
  id: r.id,
  key: r.key,
  name: r.name,
  description: r.description,
  payer: r.payer,
  prices: r.prices,
  features: r.features,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});

const uniq = (xs: string[]) => [...new Set(xs)].sort();

export interface CreatePlanInput {
  key: string;
  name: string;
  description?: string | null;
  payer: 'user' | 'organization';
  prices?: PlanPrice[];
  features?: string[];
}

export async function createPlan(deps: D, instanceId: string, input: CreatePlanInput, ctx: AuditContext) {
  const now = deps.clock.now();
  try {
    return await deps.db.transaction(async (tx) => {
      const [row] = await tx
        .insert(billingPlans)
        .values({
          id: newId('plan'),
          instanceId,
          key: input.key,
          name: input.name,
          description: input.description ?? null,
          payer: input.payer,
          prices: input.prices ?? [],
          features: uniq(input.features ?? []),
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await audit(
        { db: tx, clock: deps.clock },
        { instanceId, ...ctx, action: 'plan.created', target: row!.id, details: { key: row!.key } },
      );
      return planView(row!);
    });
  } catch (err) {
    if (uniqueViolation(err))
      throw new AppError('CONFLICT', { message: `A plan with key "${input.key}" exists.`, meta: { param: 'key', reason: 'taken' } });
    throw err;
  }
}

/** A plan by id or key. */
export async function findPlan(db: Db, instanceId: string, idOrKey: string): Promise<PlanRow | null> {
  const match = isId('plan', idOrKey) ? eq(billingPlans.id, idOrKey) : eq(billingPlans.key, idOrKey);
  const [row] = await db
    .select()
    .from(billingPlans)
    .where(and(eq(billingPlans.instanceId, instanceId), match));
  return row ?? null;
}

async function loadPlan(db: Db, instanceId: string, id: string) {
  const row = await findPlan(db, instanceId, id);
  if (!row) throw notFound('plan');
  return row;
}

export const getPlan = async (deps: Pick<Deps, 'db'>, instanceId: string, id: string) => planView(await loadPlan(deps.db, instanceId, id));

export async function listPlans(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  q: { limit: number; starting_after?: string; payer?: 'user' | 'organization' },
) {
  const filters: (SQL | undefined)[] = [eq(billingPlans.instanceId, instanceId)];
  if (q.payer) filters.push(eq(billingPlans.payer, q.payer));
  return cursorList(q, newestFirst(billingPlans.id), tableRows(deps.db, billingPlans, ...filters), planView);
}

export async function updatePlan(
  deps: D,
  instanceId: string,
  id: string,
  input: { name?: string; description?: string | null; prices?: PlanPrice[]; features?: string[] },
  ctx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const current = await loadPlan(tx, instanceId, id);
    const patch: Partial<typeof billingPlans.$inferInsert> = { updatedAt: deps.clock.now() };
    if (input.name !== undefined) patch.name = input.name;
    if (input.description !== undefined) patch.description = input.description;
    if (input.prices !== undefined) patch.prices = input.prices;
    if (input.features !== undefined) patch.features = uniq(input.features);
    const [row] = await tx.update(billingPlans).set(patch).where(eq(billingPlans.id, current.id)).returning();
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId, ...ctx, action: 'plan.updated', target: row!.id, details: { fields: Object.keys(input).sort() } },
    );
    return planView(row!);
  });
}

/** Deleting a plan leaves its subscriptions (the processor still bills them) without a plan, hence without features. */
export async function deletePlan(deps: D, instanceId: string, id: string, ctx: AuditContext) {
  return deps.db.transaction(async (tx) => {
    const current = await loadPlan(tx, instanceId, id);
    await tx.delete(billingPlans).where(eq(billingPlans.id, current.id));
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId, ...ctx, action: 'plan.deleted', target: current.id, details: { key: current.key } },
    );
    return { object: 'plan' as const, id: current.id, deleted: true };
  });
}

/** The plan a processor price belongs to, else the one our checkout named in the subscription's metadata. */
export async function planForPrice(
  db: Db,
  instanceId: string,
  priceId: string | null,
  planIdHint: string | undefined,
): Promise<PlanRow | null> {
  if (priceId) {
    const contains = sql`${billingPlans.prices} @> ${JSON.stringify([{ processor_price_id: priceId }])}::jsonb`;
    const [row] = await db
      .select()
      .from(billingPlans)
      .where(and(eq(billingPlans.instanceId, instanceId), contains))
      .limit(1);
    if (row) return row;
  }
  if (planIdHint && isId('plan', planIdHint)) return findPlan(db, instanceId, planIdHint);
  return null;
}
