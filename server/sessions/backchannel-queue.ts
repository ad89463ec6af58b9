import type { Deps } from '../deps';
import { newId } from '../db/ids';
import { rowsOf } from '../db/rows';
import { oauthLogoutDeliveries } from '../db/schema';
import { wakeWebhookWorkersSql } from '../events/statements';
import { backchannelTargetsSql } from './statements';

/** Session statuses that end a session: the relying parties it signed into hear of it (Back-Channel Logout 1.0). */
export const ENDING_STATUSES: ReadonlySet<string> = new Set(['ended', 'revoked', 'removed', 'expired', 'abandoned']);

/**
 * Queues one back-channel logout per application with a `backchannel_logout_uri` that an
 * ended session signed into (an authorization carrying the session's id as `sid`), in the
 * caller's transaction: the session's end and its logouts commit together. A session ended
 * twice (ended, then removed) is queued once. The webhook worker delivers them.
 */
export async function queueBackchannelLogouts(deps: Pick<Deps, 'db' | 'clock'>, sessionIds: readonly string[]): Promise<number> {
  if (sessionIds.length === 0) return 0;
  const found = rowsOf<{ instance_id: string; application_id: string; sid: string; user_id: string }>(
    await deps.db.execute(backchannelTargetsSql(sessionIds)),
  );
  if (found.length === 0) return 0;
  const now = deps.clock.now();
  const queued = await deps.db
    .insert(oauthLogoutDeliveries)
    .values(
      found.map((r) => ({
        id: newId('obl'),
        instanceId: r.instance_id,
        applicationId: r.application_id,
        sessionId: r.sid,
        userId: r.user_id,
        status: 'pending' as const,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing()
    .returning({ id: oauthLogoutDeliveries.id });
  // Wakes the worker when the transaction commits (dropped if it rolls back).
  if (queued.length > 0) await deps.db.execute(wakeWebhookWorkersSql());
  return queued.length;
}
