import { eq, gte, lt, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { auditLogs } from '../db/schema';
import { newId } from '../db/ids';
import { kindOfRef } from '../http/actor';
import { cursorList, newestFirst, tableRows } from '../http/cursor-list';
import { auditTrail, type AuditEntry } from '../http/transaction';

/**
 * Call inside the transaction of the change it records. The router audits every state
 * change it runs; an entry written here (with more detail) stands in for the router's.
 */
export async function audit(deps: Pick<Deps, 'db' | 'clock'>, e: AuditEntry): Promise<void> {
  const trail = auditTrail.getStore();
  if (trail) trail.written += 1;
  await deps.db.insert(auditLogs).values({
    id: newId('aud'),
    instanceId: e.instanceId,
    actor: e.actor,
    actorKind: e.actorKind ?? kindOfRef(e.actor),
    action: e.action,
    target: e.target ?? null,
    ip: e.ip ?? null,
    userAgent: e.userAgent ?? null,
    details: e.details ?? {},
    createdAt: deps.clock.now(),
  });
}

type AuditRow = typeof auditLogs.$inferSelect;

export const auditLogView = (r: AuditRow) => ({
  object: 'audit_log' as const,
  id: r.id,
  actor: r.actor,
  actor_kind: r.actorKind ?? kindOfRef(r.actor),
  action: r.action,
  target: r.target,
  ip: r.ip,
  user_agent: r.userAgent,
  details: r.details,
  created_at: r.createdAt,
});
export interface AuditLogQuery {
  action?: string;
  actor?: string;
  target?: string;
  /** Inclusive lower bound on created_at (ms). */
  since?: number;
  /** Exclusive upper bound on created_at (ms). */
  until?: number;
  limit: number;
  starting_after?: string;
}

/** An instance's audit entries, newest first, keyset-paginated on the time-sortable id. */
export async function listAuditLogs(deps: Pick<Deps, 'db'>, instanceId: string, q: AuditLogQuery) {
  const filters: (SQL | undefined)[] = [eq(auditLogs.instanceId, instanceId)];
  if (q.action !== undefined) filters.push(eq(auditLogs.action, q.action));
  if (q.actor !== undefined) filters.push(eq(auditLogs.actor, q.actor));
  if (q.target !== undefined) filters.push(eq(auditLogs.target, q.target));
  if (q.since !== undefined) filters.push(gte(auditLogs.createdAt, q.since));
  if (q.until !== undefined) filters.push(lt(auditLogs.createdAt, q.until));
  return cursorList(q, newestFirst(auditLogs.id), tableRows(deps.db, auditLogs, ...filters), auditLogView);
}
