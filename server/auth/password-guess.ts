import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { users } from '../db/schema';
import type { AuditContext } from '../http/actor';
import type { AppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { recordFailedAttempt, type LockTarget } from '../protection/lockout';
import { checkPassword } from '../users/password-policy';

/** What a password check reads of the user: the digest, and the lock (refused before the costly hash). */
export interface StoredPassword {
  digest: string | null;
  hasher: string | null;
  locked: boolean;
  lockedUntil: number | null;
}

/** The user's digest and lock in one read (null for no such user of the instance). */
export async function storedPasswordOf(db: Db, instanceId: string, userId: string): Promise<StoredPassword | null> {
  const [row] = await db
    .select({ digest: users.passwordDigest, hasher: users.passwordHasher, locked: users.locked, lockedUntil: users.lockedUntil })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  return row ?? null;
}

/**
 * Checks a guessed password as every sign-in does: against the stored digest (the dummy one
 * when there is none: the same timing), a wrong guess counted towards the account lockout
 * (USER_LOCKED once it trips, else `wrong()`). Answers the digest that matched, for a rehash.
 */
export async function checkGuessedPassword(
  deps: Deps,
  instance: InstanceContext,
  stored: StoredPassword | null | undefined,
  password: string,
  target: LockTarget,
  auditCtx: AuditContext,
  wrong: () => AppError,
): Promise<{ digest: string; hasher: string } | null> {
  const known = stored?.digest && stored.hasher ? { digest: stored.digest, hasher: stored.hasher } : null;
  if (!(await checkPassword(deps, password, known))) throw (await recordFailedAttempt(deps, instance, target, auditCtx)) ?? wrong();
  return known;
}
