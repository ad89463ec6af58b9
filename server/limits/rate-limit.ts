import type { Deps } from '../deps';
import { auditThrottled } from '../audit/throttled';
import type { RequestOrigin } from '../http/actor';
import { AppError } from '../http/errors';
import type { LimitDecision, LimitRule } from '../infra/limiter';

/** The IETF RateLimit headers of a decision. */
export const rateLimitHeaders = (d: LimitDecision): Record<string, string> => ({
  'ratelimit-limit': String(d.limit),
  'ratelimit-remaining': String(d.remaining),
  'ratelimit-reset': String(d.retryAfter),
});

/** Whose budget a hit spends, for the metric and the audit entry of a refusal. */
export interface LimitScope {
  instanceId: string;
  /** How the audit log names the caller (`key:…`, or `anonymous` before sign-in). */
  actor: string;
  request: RequestOrigin;
}

/**
 * Counts one hit against a budget; past it, 429 RATE_LIMITED with Retry-After and
 * meta.retry_after (seconds), counted in the rejection metric and, for an instance's
 * budget, audited as `rate_limit.exceeded` at most once a minute per budget and subject.
 */
export async function enforceLimit(
  deps: Pick<Deps, 'limiter' | 'clock' | 'metrics' | 'db' | 'caches' | 'logger'>,
  surface: string,
  rule: LimitRule,
  subject: string,
  scope?: LimitScope,
): Promise<LimitDecision> {
  const decision = await deps.limiter.check(rule, subject, deps.clock.now());
  if (decision.allowed) return decision;
  deps.metrics.limiterRejections.inc({ surface, limit: rule.name, ...(scope ? { instance: scope.instanceId } : {}) });
  if (scope) {
    await auditThrottled(deps, `rl|${rule.name}|${subject}`, {
      instanceId: scope.instanceId,
      actor: scope.actor,
      action: 'rate_limit.exceeded',
      ip: scope.request.ip,
      userAgent: scope.request.userAgent,
      details: { surface, budget: rule.budget ?? rule.name, limit: rule.limit, window_seconds: rule.windowMs / 1000 },
    });
  }
  throw new AppError('RATE_LIMITED', {
    meta: { retry_after: decision.retryAfter },
    headers: { 'retry-after': String(decision.retryAfter), ...rateLimitHeaders(decision) },
  });
}
