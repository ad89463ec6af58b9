import { eq } from 'drizzle-orm';
import type { Context } from 'hono';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { AuditContext } from '../http/actor';
import { rateLimitPolicies } from '../db/schema';
import { AppError } from '../http/errors';
import type { LimitRule } from '../infra/limiter';
import { enforceLimit, type LimitScope } from './rate-limit';
import { clientIp } from '../http/request-context';
import { BUDGET_NAMES, BUDGETS, MIN_BUDGET, type BudgetName, type BudgetSubject } from './budgets';

export interface PolicyInstance {
  id: string;
  environment: 'test' | 'live';
}

type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation' | 'config'>;
interface Stored {
  budgets: Partial<Record<BudgetName, number>>;
  updatedAt: number | null;
}

/**
 * Read on every limited request, so kept per node; a change is forgotten at once on the
 * node that made it and seen by the others within this TTL (the contract's 5 seconds).
 */
export const POLICY_CACHE_TTL_MS = 4_000;
const POLICY_CACHE = 'rate_limit_policy';
const cacheOf = (deps: Pick<Deps, 'caches'>) => deps.caches.get<Stored>(POLICY_CACHE, POLICY_CACHE_TTL_MS);

async function storedPolicy(deps: Pick<D, 'db' | 'clock' | 'caches'>, instanceId: string): Promise<Stored> {
  const cache = cacheOf(deps);
  const now = deps.clock.now();
  const hit = cache.get(instanceId, now);
  if (hit) return hit;
  const [row] = await deps.db.select().from(rateLimitPolicies).where(eq(rateLimitPolicies.instanceId, instanceId));
  const stored: Stored = { budgets: (row?.budgets ?? {}) as Stored['budgets'], updatedAt: row?.updatedAt ?? null };
  cache.set(instanceId, stored, now);
  return stored;
}

/** A budget's ceiling (its default) and the value in force: never above the ceiling, whatever was stored. */
function effective(deps: Pick<D, 'config'>, instance: PolicyInstance, stored: Stored, name: BudgetName) {
  const max = BUDGETS[name].defaultLimit(deps.config, instance.environment);
  const set = stored.budgets[name];
  return { max, limit: set === undefined ? max : Math.max(MIN_BUDGET, Math.min(set, max)) };
}

/** The limiter rule of one budget for this instance. */
export async function budgetRule(deps: D, instance: PolicyInstance, name: BudgetName): Promise<LimitRule> {
  const { limit } = effective(deps, instance, await storedPolicy(deps, instance.id), name);
  return { name: BUDGETS[name].rule, budget: name, limit, windowMs: BUDGETS[name].windowMs };
}

function policyView(deps: Pick<D, 'config'>, instance: PolicyInstance, stored: Stored) {
  const budgets = Object.fromEntries(
    BUDGET_NAMES.map((name) => {
      const spec = BUDGETS[name];
      const { max, limit } = effective(deps, instance, stored, name);
      return [
        name,
        { limit, default: max, min: MIN_BUDGET, max, window_seconds: spec.windowMs / 1000, per: spec.per, description: spec.description },
      ];
    }),
  ) as Record<BudgetName, BudgetView>;
  return { object: 'rate_limit_policy' as const, budgets, updated_at: stored.updatedAt };
}
interface BudgetView {
  limit: number;
  default: number;
  min: number;
  max: number;
  window_seconds: number;
  per: BudgetSubject;
  description: string;
}
export type RateLimitPolicyView = ReturnType<typeof policyView>;

export async function getRateLimitPolicy(deps: D, instance: PolicyInstance): Promise<RateLimitPolicyView> {
  return policyView(deps, instance, await storedPolicy(deps, instance.id));
}

/** A budget → new value (null: back to the default). */
export type PolicyPatch = Partial<Record<BudgetName, number | null>>;

/**
 * Tightens (or restores) budgets. A value above the default or below 1 is refused, naming
 * the budget and its bounds: protection can be neither switched off nor loosened. Audited
 * in the transaction of the change, with the values before and after.
 */
export async function updateRateLimitPolicy(
  deps: D,
  instance: PolicyInstance,
  patch: PolicyPatch,
  ctx: AuditContext,
): Promise<RateLimitPolicyView> {
  for (const name of BUDGET_NAMES) {
    const value = patch[name];
    if (value === undefined || value === null) continue;
    const max = BUDGETS[name].defaultLimit(deps.config, instance.environment);
    if (value < MIN_BUDGET || value > max) {
      throw new AppError('VALIDATION_FAILED', {
        message: `${name} must be between ${MIN_BUDGET} and ${max} (its default): a policy may only tighten a budget.`,
        meta: { param: name, reason: value < MIN_BUDGET ? 'too_small' : 'too_big', min: MIN_BUDGET, max },
      });
    }
  }
  const now = deps.clock.now();
  const result = await deps.db.transaction(async (tx) => {
    const [row] = await tx.select().from(rateLimitPolicies).where(eq(rateLimitPolicies.instanceId, instance.id)).for('update');
    const before = (row?.budgets ?? {}) as Stored['budgets'];
    const after: Stored['budgets'] = { ...before };
    for (const name of BUDGET_NAMES) {
      const value = patch[name];
      if (value === null) delete after[name];
      else if (value !== undefined) after[name] = value;
    }
    await tx
      .insert(rateLimitPolicies)
      .values({ instanceId: instance.id, budgets: after, updatedAt: now })
      .onConflictDoUpdate({ target: rateLimitPolicies.instanceId, set: { budgets: after, updatedAt: now } });
    await audit(
      { db: tx, clock: deps.clock },
      { ...ctx, instanceId: instance.id, action: 'rate_limit_policy.updated', target: instance.id, details: { before, after } },
    );
    return { budgets: after, updatedAt: now };
  });
  deps.cacheInvalidation.invalidate(POLICY_CACHE, instance.id);
  return policyView(deps, instance, result);
}

type LimitDeps = D & Pick<Deps, 'limiter' | 'metrics' | 'logger'>;

/**
 * Counts one hit of `subject` (what the budget is counted per: an IP, a user id, an
 * organization id) against an instance's budget: 429 RATE_LIMITED past it, audited for `actor`.
 */
export async function enforceBudget(
  deps: LimitDeps,
  surface: string,
  instance: PolicyInstance,
  name: BudgetName,
  subject: string,
  scope: Omit<LimitScope, 'instanceId'>,
) {
  await enforceLimit(deps, surface, await budgetRule(deps, instance, name), `${instance.id}:${subject}`, {
    ...scope,
    instanceId: instance.id,
  });
}

/**
 * Counts one request of the caller's IP against an instance's per-IP budget (429 past it).
 * Without a peer address (a host that hides it) there is nothing to count per IP.
 */
export async function enforceIpBudget(deps: LimitDeps, c: Context, surface: string, instance: PolicyInstance, name: BudgetName) {
  const ip = clientIp(c, deps.config);
  if (!ip) return;
  await enforceBudget(deps, surface, instance, name, ip, {
    actor: 'anonymous',
    request: { ip, userAgent: c.req.header('user-agent') ?? null },
  });
}
