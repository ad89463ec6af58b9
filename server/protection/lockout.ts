import { and, eq, isNotNull, lt, lte, or, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { identifierLockouts, signInFailures, users } from '../db/schema';
import { newId } from '../db/ids';
import type { Bound } from '../db/prepared';
import { emitEvent } from '../events/events';
import { AppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { getUser } from '../users/users';
import { count as countMetric } from '../analytics/metrics';
import { clearFailuresSql } from './statements';

/**
 * User lockout (attack protection): N failed first- or second-factor attempts on one
 * account within the window lock it for the lockout duration; every sign-in step then
 * answers 403 USER_LOCKED with `meta.expires_at`.
 *
 * No existence oracle: failures against an identifier that names nobody are counted and
 * locked the same way (under `identifier:<identifier>`), so a locked unknown account
 * answers exactly like a locked real one. A real user's lockout is on the user row
 * (`locked`, `locked_until`), emits user.updated and is audited (`user.locked`).
 */

type D = Pick<Deps, 'db' | 'clock' | 'metrics'>;
/** Who failed, from where (the sign-in's client actor). */
interface AuditContext {
  actor: string;
  ip?: string | null;
  userAgent?: string | null;
}
/** The parts of a sign-in attempt that name the account. */
export interface LockTarget {
  userId: string | null;
  identifier: string;
}

const subjectOf = (t: LockTarget) => (t.userId ? `user:${t.userId}` : `identifier:${t.identifier.toLowerCase()}`);
const lockoutOf = (instance: InstanceContext) => instance.settings.attack_protection.user_lockout;
const MINUTE = 60_000;

const userLocked = (until: number | null) =>
  new AppError('USER_LOCKED', {
    message: 'This account is locked after too many failed attempts; try again later.',
    meta: { expires_at: until },
  });

/** A user row's lock columns, as the sign-in steps read them with what else they need. */
export interface UserLockColumns {
  locked: boolean;
  lockedUntil: number | null;
}

/** When a user row's lock ends: null for an operator's lock (no end), undefined when not locked now. */
const userLockEnd = (row: UserLockColumns | undefined, now: number): number | null | undefined =>
  !row?.locked ? undefined : row.lockedUntil === null || row.lockedUntil > now ? row.lockedUntil : undefined;

/** When the account's lockout ends, or null when it is not locked (lockout off: never locked). */
async function lockedUntil(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, t: LockTarget): Promise<number | null | undefined> {
  const now = deps.clock.now();
  if (t.userId) {
    const [row] = await deps.db
      .select({ locked: users.locked, lockedUntil: users.lockedUntil })
      .from(users)
      .where(and(eq(users.id, t.userId), eq(users.instanceId, instance.id)));
    return userLockEnd(row, now);
  }
  const [row] = await deps.db
    .select({ until: identifierLockouts.lockedUntil })
    .from(identifierLockouts)
    .where(and(eq(identifierLockouts.instanceId, instance.id), eq(identifierLockouts.subject, subjectOf(t))));
  return row && row.until > now ? row.until : undefined;
}

/**
 * Refuses a sign-in step on a locked account (403 USER_LOCKED, meta.expires_at). An
 * operator's lock (no end: `locked_until` null) holds even with lockout protection off;
 * then only attack protection's own, timed lockouts stop counting.
 */
export async function assertNotLocked(
  deps: Pick<Deps, 'db' | 'clock'>,
  instance: InstanceContext,
  t: LockTarget,
  /** `timed: false`: only an operator's lock holds (a step that is no guess of a secret). */
  opts: { timed?: boolean } = {},
): Promise<void> {
  if (!timedLockoutHolds(instance, opts) && !t.userId) return;
  refuseLock(instance, await lockedUntil(deps, instance, t), opts);
}

/** assertNotLocked for a user row the caller read already (its lock columns among others). */
export function assertUserRowNotLocked(
  deps: Pick<Deps, 'clock'>,
  instance: InstanceContext,
  row: UserLockColumns,
  opts: { timed?: boolean } = {},
): void {
  refuseLock(instance, userLockEnd(row, deps.clock.now()), opts);
}

/** Timed lockouts hold when lockout protection is on and the step is a guess of a secret (`timed`, the default). */
const timedLockoutHolds = (instance: InstanceContext, opts: { timed?: boolean }) => (opts.timed ?? true) && lockoutOf(instance).enabled;

/** An operator's lock (no end) always holds; a timed one only when timedLockoutHolds. */
function refuseLock(instance: InstanceContext, until: number | null | undefined, opts: { timed?: boolean }): void {
  if (until === undefined || (until !== null && !timedLockoutHolds(instance, opts))) return;
  throw userLocked(until);
}

/**
 * Counts one failed attempt; when it is the Nth within the window, locks the account and
 * answers the USER_LOCKED error to throw instead of the failure's own (else null).
 * Commits on its own: the caller is about to throw.
 */
export async function recordFailedAttempt(deps: D, instance: InstanceContext, t: LockTarget, ctx: AuditContext): Promise<AppError | null> {
  await countMetric(deps, instance.id, 'sign_in_failures');
  const policy = lockoutOf(instance);
  if (!policy.enabled) return null;
  const now = deps.clock.now();
  const subject = subjectOf(t);
  const until = now + policy.lockout_minutes * MINUTE;
  const mine = and(eq(signInFailures.instanceId, instance.id), eq(signInFailures.subject, subject));
  const locked = await deps.db.transaction(async (tx) => {
    await tx.insert(signInFailures).values({ id: newId('sif'), instanceId: instance.id, subject, createdAt: now });
    await tx.delete(signInFailures).where(and(mine, lt(signInFailures.createdAt, now - policy.window_minutes * MINUTE)));
    const [{ count } = { count: 0 }] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(signInFailures)
      .where(mine);
    if (count < policy.max_attempts) return false;
    await tx.delete(signInFailures).where(mine);
    const d = { db: tx, clock: deps.clock };
    if (!t.userId) {
      await tx
        .insert(identifierLockouts)
        .values({ instanceId: instance.id, subject, lockedUntil: until })
        .onConflictDoUpdate({ target: [identifierLockouts.instanceId, identifierLockouts.subject], set: { lockedUntil: until } });
      await audit(d, {
        ...lockAudit(instance, ctx, 'sign_in.identifier_locked', t.identifier),
        details: { failed_attempts: count, locked_until: until },
      });
      return true;
    }
    // Only the request that locks it announces it (two racing failures lock once).
    const [changed] = await tx
      .update(users)
      .set({ locked: true, lockedUntil: until, updatedAt: now })
      .where(and(eq(users.id, t.userId), eq(users.instanceId, instance.id), or(eq(users.locked, false), lte(users.lockedUntil, now))))
      .returning({ id: users.id });
    if (!changed) return true;
    await emitEvent(d, instance.id, 'user.updated', await getUser(d, instance.id, t.userId));
    await audit(d, { ...lockAudit(instance, ctx, 'user.locked', t.userId), details: { failed_attempts: count, locked_until: until } });
    return true;
  });
  if (!locked) return null;
  deps.metrics.protection.inc({ instance: instance.id, rule: 'user_lockout' });
  return userLocked(until);
}

const lockAudit = (instance: InstanceContext, ctx: AuditContext, action: string, target: string) => ({
  instanceId: instance.id,
  actor: 'system:attack_protection',
  action,
  target,
  ip: ctx.ip,
  userAgent: ctx.userAgent,
});

/** A completed sign-in starts the count afresh: the write, to send with others (db/together.ts); null when lockout is off. */
export function clearFailedAttemptsWrite(instance: InstanceContext, userId: string): Bound | null {
  if (!lockoutOf(instance).enabled) return null;
  return clearFailuresSql(instance.id, userId);
}

/**
 * Ends a timed lockout (failed guesses) and forgets the failures, when the owner proved
 * themselves another way (a completed password reset). An operator's lock stays.
 */
export async function endTimedLockout(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, userId: string): Promise<void> {
  await deps.db.delete(signInFailures).where(and(eq(signInFailures.instanceId, instance.id), eq(signInFailures.subject, `user:${userId}`)));
  await deps.db
    .update(users)
    .set({ locked: false, lockedUntil: null })
    .where(and(eq(users.id, userId), eq(users.instanceId, instance.id), eq(users.locked, true), isNotNull(users.lockedUntil)));
}

/**
 * Locks a user until an operator unlocks them (POST /v1/users/:id/lock): `locked` with no
 * `locked_until`, whatever the lockout settings (assertNotLocked); a timed lockout becomes
 * this one. Emits user.updated when that changed anything. Run in the router's audited
 * transaction (`user.locked`).
 */
export async function lockUser(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const before = await getUser(deps, instanceId, userId);
  if (before.locked && before.locked_until === null) return before;
  await deps.db
    .update(users)
    .set({ locked: true, lockedUntil: null, updatedAt: deps.clock.now() })
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  const after = await getUser(deps, instanceId, userId);
  await emitEvent(deps, instanceId, 'user.updated', after);
  return after;
}

/**
 * Ends a user's lockout early, or an operator's lock (POST /v1/users/:id/unlock), and forgets their failures;
 * emits user.updated when the user was locked. Run in the router's audited transaction.
 */
export async function unlockUser(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const before = await getUser(deps, instanceId, userId);
  await deps.db.delete(signInFailures).where(and(eq(signInFailures.instanceId, instanceId), eq(signInFailures.subject, `user:${userId}`)));
  const [changed] = await deps.db
    .update(users)
    .set({ locked: false, lockedUntil: null, updatedAt: deps.clock.now() })
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId), eq(users.locked, true)))
    .returning({ id: users.id });
  if (!changed) return before;
  const after = await getUser(deps, instanceId, userId);
  // A lockout that already ran out changes nothing anyone could see: no event.
  if (before.locked) await emitEvent(deps, instanceId, 'user.updated', after);
  return after;
}
