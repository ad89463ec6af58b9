import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { AuditContext } from '../http/actor';

/** Who changed something, for the audit log: a BAPI key, a FAPI session or an operator. */
export type OrgAuditContext = AuditContext;

/** Records a sensitive organization change in the caller's transaction; nothing without a context (system changes). */
export async function auditOrgChange(
  d: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  ctx: OrgAuditContext | undefined,
  action: string,
  target: string,
  details: Record<string, unknown> = {},
) {
  if (!ctx) return;
  await audit(d, { instanceId, actor: ctx.actor, actorKind: ctx.actorKind, action, target, ip: ctx.ip, userAgent: ctx.userAgent, details });
}
