import type { Deps } from '../deps';
import { auditLogs } from '../db/schema';
import { newId } from '../http/ids';

export interface AuditEntry {
  instanceId: string | null;
  actor: string;
  action: string;
  target?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  details?: Record<string, unknown>;
}

/** Call inside the transaction of the change it records. */
export async function audit(deps: Pick<Deps, 'db' | 'clock'>, e: AuditEntry): Promise<void> {
  await deps.db.insert(auditLogs).values({
    id: newId('aud'),
    instanceId: e.instanceId,
    actor: e.actor,
    action: e.action,
    target: e.target ?? null,
    ip: e.ip ?? null,
    userAgent: e.userAgent ?? null,
    details: e.details ?? {},
    createdAt: deps.clock.now(),
  });
}
