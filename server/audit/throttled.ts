import type { Deps } from '../deps';
import type { AuditEntry } from '../http/transaction';
import { audit } from './audit';

/** Repeated refusals (rate limits, network ACL denials) are audited at most once per this interval per key on each node. */
export const THROTTLED_AUDIT_INTERVAL_MS = 60_000;
/**
 * And at most this many entries of one action per instance per interval on each node:
 * addresses are cheap to rotate (an IPv6 /64 holds 2^64), so a per-address key alone would
 * not bound the log.
 */
export const THROTTLED_AUDIT_MAX_PER_INTERVAL = 100;

/**
 * Audits an entry unless one with the same key was written on this node within the
 * interval: a flood of refusals leaves a trace without flooding the log. Outside any
 * transaction (a refusal changes nothing); a failure to write is logged, never thrown.
 */
export async function auditThrottled(
  deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'logger'>,
  key: string,
  entry: AuditEntry,
): Promise<void> {
  const seen = deps.caches.get<true>('audit_throttle', THROTTLED_AUDIT_INTERVAL_MS);
  const now = deps.clock.now();
  if (seen.get(key, now)) return;
  seen.set(key, true, now);
  // A fixed window per instance and action: the entry's TTL runs from its first write.
  const buckets = deps.caches.get<{ written: number }>('audit_throttle_bucket', THROTTLED_AUDIT_INTERVAL_MS);
  const bucketKey = `${entry.instanceId ?? ''}|${entry.action}`;
  let bucket = buckets.get(bucketKey, now);
  if (!bucket) buckets.set(bucketKey, (bucket = { written: 0 }), now);
  if (bucket.written >= THROTTLED_AUDIT_MAX_PER_INTERVAL) return;
  bucket.written += 1;
  await audit(deps, entry).catch((err: unknown) =>
    deps.logger.warn({ err, action: entry.action }, 'could not write a throttled audit entry'),
  );
}
