import type { Deps } from '../deps';
import { audit, type AuditEntry } from './audit';

/** Repeated refusals (rate limits, network ACL denials) are audited at most once per this interval per key on each node. */
export const THROTTLED_AUDIT_INTERVAL_MS = 60_000;

/**
 * Audits an entry unless one with the same key was written on this node within the
 * interval: a flood of refusals leaves a trace without flooding the log. Outside any
 * transaction (a refusal changes nothing); a failure to write is logged, never thrown.
 */
export async function auditThrottled(deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'logger'>, key: string, entry: AuditEntry): Promise<void> {
  const seen = deps.caches.get<true>('audit_throttle', THROTTLED_AUDIT_INTERVAL_MS);
  const now = deps.clock.now();
  if (seen.get(key, now)) return;
  seen.set(key, true, now);
  await audit(deps, entry).catch((err: unknown) => deps.logger.warn({ err, action: entry.action }, 'could not write a throttled audit entry'));
}
