import type { Deps } from '../deps';
import { auditThrottled, THROTTLED_AUDIT_INTERVAL_MS } from '../audit/throttled';
import type { RequestOrigin } from '../http/actor';
import { AppError } from '../http/errors';
import { evaluateNetworkAcl } from './network-acls';

/** A denied address is audited at most once a minute per instance, rule and address on each node: a flood writes no flood of entries. */
export const DENIAL_AUDIT_INTERVAL_MS = THROTTLED_AUDIT_INTERVAL_MS;

/**
 * The network ACL guard of every instance-scoped surface, run by the router before the
 * surface authenticates, so a denied address spends no rate-limit budget: 403 IP_DENIED,
 * counted in latchkey_network_acl_denials_total and kept in the audit log.
 */
export async function enforceNetworkAcl(deps: Deps, surface: string, instanceId: string, request: RequestOrigin): Promise<void> {
  const verdict = await evaluateNetworkAcl(deps, instanceId, surface, request.ip);
  if (verdict.allowed) return;
  deps.metrics.aclDenials.inc({ surface, instance: instanceId, rule: verdict.rule ?? verdict.reason });
  await auditDenial(deps, surface, instanceId, request, verdict.rule, verdict.reason);
  throw new AppError('IP_DENIED', {
    message: 'Requests from this address are not allowed by this application’s network rules.',
    meta: { reason: verdict.reason },
  });
}

function auditDenial(deps: Deps, surface: string, instanceId: string, request: RequestOrigin, rule: string | null, reason: string) {
  return auditThrottled(deps, `acl|${instanceId}|${rule ?? reason}|${request.ip ?? ''}`, {
    instanceId,
    actor: 'anonymous',
    action: 'network_acl.denied',
    target: rule,
    ip: request.ip,
    userAgent: request.userAgent,
    details: { surface, reason },
  });
}
