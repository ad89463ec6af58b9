import type { Deps } from '../deps';
import { AppError } from './errors';
import type { LimitDecision, LimitRule } from './limiter';

/** The IETF RateLimit headers of a decision. */
export const rateLimitHeaders = (d: LimitDecision): Record<string, string> => ({
  'ratelimit-limit': String(d.limit),
  'ratelimit-remaining': String(d.remaining),
  'ratelimit-reset': String(d.retryAfter),
});

/**
 * Counts one hit against a budget; past it, 429 RATE_LIMITED with Retry-After and
 * meta.retry_after (seconds), counted in the rejection metric.
 */
export async function enforceLimit(
  deps: Pick<Deps, 'limiter' | 'clock' | 'metrics'>,
  surface: string,
  rule: LimitRule,
  subject: string,
  /** The instance whose budget this is, for the rejection metric. */
  instanceId?: string,
): Promise<LimitDecision> {
  const decision = await deps.limiter.check(rule, subject, deps.clock.now());
  if (decision.allowed) return decision;
  deps.metrics.limiterRejections.inc({ surface, limit: rule.name, ...(instanceId ? { instance: instanceId } : {}) });
  throw new AppError('RATE_LIMITED', {
    meta: { retry_after: decision.retryAfter },
    headers: { 'retry-after': String(decision.retryAfter), ...rateLimitHeaders(decision) },
  });
}
