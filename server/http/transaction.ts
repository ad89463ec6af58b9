import type { Deps } from '../deps';
import { AppError, isAppError } from './errors';
import type { ActorKind } from './actor';

import { AsyncLocalStorage } from 'node:async_hooks';

/** One audit log entry, as audit/audit.ts writes it and the router asks for it. */
export interface AuditEntry {
  instanceId: string | null;
  actor: string;
  actorKind?: ActorKind;
  action: string;
  target?: string | null;
  ip?: string | null;
  userAgent?: string | null;
  details?: Record<string, unknown>;
}

/** Counts the audit entries written for one request (audit/audit.ts increments it). */
export interface AuditTrail {
  written: number;
}

/**
 * The audit trail of the request being handled. Async-local rather than passed in `deps`,
 * so an entry counts however the domain rebuilt its dependencies on the way.
 */
export const auditTrail = new AsyncLocalStorage<AuditTrail>();

/**
 * Runs `work` in one transaction. A refused request (an AppError) still commits what it
 * deliberately wrote before refusing — a failed attempt counted, a session revoked on
 * refresh-token reuse — since the domain's own nested transactions have already rolled
 * back anything partial; the error is rethrown after the commit.
 */
export async function transactionKeepingRefusals<T>(deps: Deps, work: (d: Deps) => Promise<T>): Promise<T> {
  const outcome = await deps.db.transaction(async (tx): Promise<{ ok: T } | { refused: AppError }> => {
    try {
      return { ok: await work({ ...deps, db: tx }) };
    } catch (e) {
      if (isAppError(e)) return { refused: e };
      throw e;
    }
  });
  if ('refused' in outcome) throw outcome.refused;
  return outcome.ok;
}
