import { and, eq, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { passkeys, totpFactors } from '../db/schema';
import type { InstanceContext } from '../instances/instances';

export type SessionTask = { key: 'setup_mfa' };

/**
 * Tasks a session must complete before it becomes active. Only pending sessions have
 * any; `setup_mfa` when the instance requires MFA and the user has not enrolled.
 * Takes the set of users with a verified factor among `userIds` in one query.
 */
export async function sessionTasksFor(
  db: Db,
  instance: InstanceContext,
  list: { userId: string; status: string }[],
): Promise<SessionTask[][]> {
  if (!instance.settings.mfa_required || !list.some((s) => s.status === 'pending')) return list.map(() => []);
  const pendingUsers = [...new Set(list.filter((s) => s.status === 'pending').map((s) => s.userId))];
  const [totp, withPasskeys] = await Promise.all([
    db
      .select({ userId: totpFactors.userId })
      .from(totpFactors)
      .where(and(inArray(totpFactors.userId, pendingUsers), eq(totpFactors.status, 'verified'))),
    // Under mfa_required a passkey is a second factor (server/passkeys) while passkeys are on.
    instance.settings.sign_in_methods.passkey
      ? db.selectDistinct({ userId: passkeys.userId }).from(passkeys).where(inArray(passkeys.userId, pendingUsers))
      : [],
  ]);
  const enrolled = new Set([...totp, ...withPasskeys].map((r) => r.userId));
  return list.map((s) => (s.status === 'pending' && !enrolled.has(s.userId) ? [{ key: 'setup_mfa' as const }] : []));
}
