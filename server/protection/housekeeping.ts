import { lt, lte } from 'drizzle-orm';
import type { Deps } from '../deps';
import { identifierLockouts, signInFailures } from '../db/schema';
import { LOCKOUT_BOUNDS } from '../instances/protection-settings';

/**
 * Drops lockout state nobody needs any more: failed attempts older than the longest
 * counting window any instance may set, and identifier lockouts that have run out (a
 * user's lockout stays on the user row, where `locked_until` tells it has ended).
 */
export async function purgeLockoutState(deps: Pick<Deps, 'db' | 'clock'>) {
  const now = deps.clock.now();
  const failures = await deps.db
    .delete(signInFailures)
    .where(lt(signInFailures.createdAt, now - LOCKOUT_BOUNDS.window_minutes.max * 60_000))
    .returning({ id: signInFailures.id });
  const lockouts = await deps.db
    .delete(identifierLockouts)
    .where(lte(identifierLockouts.lockedUntil, now))
    .returning({ subject: identifierLockouts.subject });
  return { sign_in_failures: failures.length, identifier_lockouts: lockouts.length };
}
