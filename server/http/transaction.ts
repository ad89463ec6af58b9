import type { Deps } from '../deps';
import { AppError, isAppError } from './errors';

/** Counts the audit entries written for one request (audit/audit.ts increments it). */
export interface AuditTrail {
  written: number;
}

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
