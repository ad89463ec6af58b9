import type { AuditContext } from '../http/actor';
import { and, eq, isNotNull, isNull, lt, or } from 'drizzle-orm';
import { randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { backupCodes, instances, sessions, totpFactors, users } from '../db/schema';
import { emitEvent } from '../events/events';
import { AppError, notFound } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { applicationName } from '../instances/branding-settings';
import type { Reason } from '../http/errors';
import { applySessionAction } from '../sessions/sessions';
import { updateSessions } from '../sessions/session-state';
import { hasSecondFactor } from '../sessions/factor-verification';
import type { PasswordHasher } from '../crypto/passwords';
import { getUser } from './users';

/**
 * Multi-factor authentication: one TOTP factor per user (RFC 6238: SHA-1, 6 digits,
 * 30 s steps, ±1 step accepted) and 10 single-use backup codes.
 *
 * - Enrollment: `beginTotpEnrollment` stores a fresh secret (encrypted with
 *   ENCRYPTION_KEY) as a `pending` factor and answers it with its otpauth:// URI;
 *   `confirmTotp` checks a first code, marks the factor `verified`, and answers the
 *   backup codes once (stored only as keyed digests).
 * - A code is accepted at most once: each accepted code records its time step, and a code
 *   of that step or an older one is refused (replay within the ±1 window).
 * - With the instance setting `mfa_required`, a session of a user without a verified
 *   factor starts `pending` with the task `setup_mfa` (see `sessionTasks`); confirming
 *   enrollment from that session activates it.
 *
 * The sign-in flow uses `hasSecondFactor`, `verifySecondFactor` and `initialSessionStatus`.
 */

type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'cacheInvalidation'>;

const TOTP_PERIOD_SECONDS = 30;
const TOTP_DIGITS = 6;
const TOTP_WINDOW = 1;
const BACKUP_CODE_COUNT = 10;
/** Lower-case letters and digits without look-alikes (0/o, 1/l/i). */
const BACKUP_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const BACKUP_CODE_LENGTH = 10;

export type SecondFactorStrategy = 'totp' | 'backup_code';

const totpFor = (secretBase32: string, label = 'user', issuer = 'Latchkey') =>
  new TOTP({
    issuer,
    label,
    algorithm: 'SHA1',
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });

const stepAt = (ms: number) => Math.floor(ms / 1000 / TOTP_PERIOD_SECONDS);

/** Backup codes are compared without case, spaces or dashes. */
const normaliseBackupCode = (code: string) => code.toLowerCase().replace(/[\s-]/g, '');
const backupDigest = (deps: Pick<Deps, 'cipher'>, userId: string, code: string) =>
  deps.cipher.mac('backup-code', `${userId}:${normaliseBackupCode(code)}`);

function newBackupCodes(): string[] {
  return Array.from({ length: BACKUP_CODE_COUNT }, () =>
    Array.from({ length: BACKUP_CODE_LENGTH }, () => BACKUP_ALPHABET[randomInt(BACKUP_ALPHABET.length)]).join(''),
  );
}

async function factorOf(db: Db, userId: string, forUpdate = false) {
  const q = db.select().from(totpFactors).where(eq(totpFactors.userId, userId));
  const [row] = forUpdate ? await q.for('update') : await q;
  return row ?? null;
}

export { hasSecondFactor };

/**
 * Checks a TOTP code against the user's factor and, when it matches, records its step in
 * one conditional UPDATE, so a code (or an older one) is never accepted twice, even by
 * two racing requests. `pendingToo` admits the not-yet-confirmed factor (enrollment).
 */
async function acceptTotp(deps: D, userId: string, code: string, pendingToo = false): Promise<boolean> {
  if (!/^\d{6}$/.test(code)) return false;
  const factor = await factorOf(deps.db, userId);
  if (!factor || (factor.status !== 'verified' && !pendingToo)) return false;
  const now = deps.clock.now();
  const delta = totpFor(deps.cipher.decrypt(factor.secretEncrypted)).validate({ token: code, timestamp: now, window: TOTP_WINDOW });
  if (delta === null) return false;
  const step = stepAt(now) + delta;
  const [accepted] = await deps.db
    .update(totpFactors)
    .set({ lastUsedStep: step, updatedAt: now })
    .where(
      and(
        eq(totpFactors.userId, userId),
        eq(totpFactors.secretEncrypted, factor.secretEncrypted),
        or(isNull(totpFactors.lastUsedStep), lt(totpFactors.lastUsedStep, step)),
      ),
    )
    .returning({ userId: totpFactors.userId });
  return accepted !== undefined;
}

/** Spends a backup code: one conditional UPDATE, so each code works exactly once. */
async function spendBackupCode(deps: D, userId: string, code: string): Promise<boolean> {
  const normalised = normaliseBackupCode(code);
  if (normalised.length !== BACKUP_CODE_LENGTH || ![...normalised].every((ch) => BACKUP_ALPHABET.includes(ch))) return false;
  if (!(await hasSecondFactor(deps.db, userId))) return false;
  const [spent] = await deps.db
    .update(backupCodes)
    .set({ usedAt: deps.clock.now() })
    .where(and(eq(backupCodes.userId, userId), eq(backupCodes.digest, backupDigest(deps, userId, code)), isNull(backupCodes.usedAt)))
    .returning({ userId: backupCodes.userId });
  return spent !== undefined;
}

/**
 * Verifies a second factor of a user of this instance: a current TOTP code (not seen
 * before) or an unused backup code (then spent). False for anything else, including a
 * user without a verified factor or of another instance.
 */
export async function verifySecondFactor(
  deps: D,
  instanceId: string,
  userId: string,
  strategy: SecondFactorStrategy,
  code: string,
): Promise<boolean> {
  const [user] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  if (!user || typeof code !== 'string' || code.length > 64) return false;
  return strategy === 'totp' ? acceptTotp(deps, userId, code.trim()) : spendBackupCode(deps, userId, code);
}

/**
 * The status a new session of this user starts in once its sign-in factors are done:
 * `pending` (task `setup_mfa`) when the instance requires MFA and the user has none yet,
 * else `active`. (Waiting for a second factor the user has is the sign-in flow's own
 * `pending`.)
 */
export async function initialSessionStatus(
  deps: Pick<Deps, 'db'>,
  instance: InstanceContext,
  userId: string,
): Promise<'active' | 'pending'> {
  if (!instance.settings.mfa_required) return 'active';
  return (await hasSecondFactor(deps.db, userId)) ? 'active' : 'pending';
}

const mfaError = (reason: Reason, message: string) => new AppError('VALIDATION_FAILED', { message, meta: { param: 'code', reason } });
export const invalidCode = () => mfaError('incorrect_code', 'The code is incorrect, expired or was already used.');

/** The state of a user's MFA, as the me-surface shows it. */
export async function mfaStatus(deps: Pick<Deps, 'db'>, userId: string) {
  const factor = await factorOf(deps.db, userId);
  const remaining =
    factor?.status === 'verified'
      ? (
          await deps.db
            .select({ d: backupCodes.digest })
            .from(backupCodes)
            .where(and(eq(backupCodes.userId, userId), isNull(backupCodes.usedAt)))
        ).length
      : 0;
  return {
    object: 'mfa' as const,
    totp_enabled: factor?.status === 'verified',
    backup_codes_remaining: remaining,
    enabled_at: factor?.status === 'verified' ? factor.verifiedAt : null,
  };
}

/**
 * Starts TOTP enrollment: a new secret replaces any unconfirmed one. A user whose
 * factor is already verified gets 409 (disable it first).
 */
export async function beginTotpEnrollment(deps: D, instance: InstanceContext, userId: string) {
  const [user] = await deps.db
    .select({ username: users.username, primaryEmailAddressId: users.primaryEmailAddressId })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instance.id)));
  if (!user) throw notFound('user');
  const existing = await factorOf(deps.db, userId);
  if (existing?.status === 'verified') {
    throw new AppError('CONFLICT', {
      message: 'TOTP is already enabled; disable it before enrolling again.',
      meta: { reason: 'totp_enabled' },
    });
  }
  const [inst] = await deps.db.select({ name: instances.name }).from(instances).where(eq(instances.id, instance.id));
  const issuer = inst ? applicationName(inst.name, instance.settings) : 'Latchkey';
  const email = user.primaryEmailAddressId
    ? await deps.db.query.emailAddresses.findFirst({ where: (e, { eq }) => eq(e.id, user.primaryEmailAddressId!) })
    : undefined;
  const secret = new Secret({ size: 20 }).base32;
  const now = deps.clock.now();
  const values = {
    secretEncrypted: deps.cipher.encrypt(secret),
    status: 'pending' as const,
    lastUsedStep: null,
    updatedAt: now,
    verifiedAt: null,
  };
  await deps.db
    .insert(totpFactors)
    .values({ userId, instanceId: instance.id, createdAt: now, ...values })
    .onConflictDoUpdate({ target: totpFactors.userId, set: values });
  const uri = totpFor(secret, email?.emailAddress ?? user.username ?? userId, issuer).toString();
  return { object: 'totp' as const, secret, uri, verified: false };
}

async function replaceBackupCodes(deps: D, userId: string): Promise<string[]> {
  const codes = newBackupCodes();
  const now = deps.clock.now();
  await deps.db.delete(backupCodes).where(eq(backupCodes.userId, userId));
  await deps.db.insert(backupCodes).values(codes.map((c) => ({ userId, digest: backupDigest(deps, userId, c), createdAt: now })));
  return codes;
}

/**
 * Confirms enrollment with a first code: the factor becomes verified and 10 backup codes
 * are made (answered once). When `sessionId` names a pending session of this user
 * waiting on `setup_mfa`, it is activated in the same transaction.
 */
export async function confirmTotp(
  deps: D,
  instance: InstanceContext,
  userId: string,
  code: string,
  sessionId: string | null,
  auditCtx: AuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    // Locked: of two racing confirmations one makes the backup codes, the other sees it done.
    const factor = await factorOf(tx, userId, true);
    if (!factor)
      throw new AppError('CONFLICT', { message: 'Start TOTP enrollment first (POST /v1/me/totp).', meta: { reason: 'not_enrolled' } });
    if (factor.status === 'verified')
      throw new AppError('CONFLICT', { message: 'TOTP is already enabled.', meta: { reason: 'totp_enabled' } });
    if (!(await acceptTotp(d, userId, code.trim(), true))) throw invalidCode();
    const now = deps.clock.now();
    await tx.update(totpFactors).set({ status: 'verified', verifiedAt: now, updatedAt: now }).where(eq(totpFactors.userId, userId));
    const codes = await replaceBackupCodes(d, userId);
    await emitUserUpdated(d, instance.id, userId);
    if (sessionId) {
      const [s] = await tx
        .select({ status: sessions.status })
        .from(sessions)
        .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), eq(sessions.instanceId, instance.id)));
      if (s?.status === 'pending' && instance.settings.mfa_required)
        await applySessionAction(d, instance.id, sessionId, 'activate', auditCtx);
    }
    return { object: 'totp' as const, verified: true, backup_codes: codes };
  });
}

/**
 * What re-verifies the user for a change of their MFA: a current TOTP code, the password, or
 * `reverified` — the router checked that the session's factors were proved within Clerk's
 * strict window (FapiGuard.reverification, auth/reverification.ts).
 */
export type MfaProof = { code: string } | { password: string } | { reverified: true };

/** New backup codes (the old ones stop working), for a current TOTP code or a reverified session. */
export async function regenerateBackupCodes(deps: D, instanceId: string, userId: string, proof: { code: string } | { reverified: true }) {
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    if ((await factorOf(tx, userId, true))?.status !== 'verified') {
      throw new AppError('CONFLICT', { message: 'Enable TOTP before making backup codes.', meta: { reason: 'not_enrolled' } });
    }
    if ('code' in proof && !(await verifySecondFactor(d, instanceId, userId, 'totp', proof.code))) throw invalidCode();
    return { object: 'backup_codes' as const, backup_codes: await replaceBackupCodes(d, userId) };
  });
}

/**
 * Disables TOTP (and drops the backup codes) after re-verification: a current TOTP code,
 * the user's password, or a reverified session. Refused with 403 while the instance requires MFA.
 */
export async function disableTotp(deps: D & Pick<Deps, 'passwords'>, instance: InstanceContext, userId: string, proof: MfaProof) {
  if (instance.settings.mfa_required) {
    throw new AppError('FORBIDDEN', { message: 'This instance requires MFA: it cannot be disabled.', meta: { reason: 'mfa_required' } });
  }
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    if ((await factorOf(tx, userId, true))?.status !== 'verified')
      throw new AppError('CONFLICT', { message: 'TOTP is not enabled.', meta: { reason: 'not_enrolled' } });
    let ok = 'reverified' in proof;
    if ('code' in proof) ok = await verifySecondFactor(d, instance.id, userId, 'totp', proof.code);
    else if ('password' in proof) {
      const [u] = await tx.select({ digest: users.passwordDigest, hasher: users.passwordHasher }).from(users).where(eq(users.id, userId));
      ok = !!u?.digest && !!u.hasher && (await deps.passwords.verify(proof.password, u.digest, u.hasher as PasswordHasher));
      if (!ok)
        throw new AppError('VALIDATION_FAILED', {
          message: 'The password is incorrect.',
          meta: { param: 'password', reason: 'incorrect_password' },
        });
    }
    if (!ok) throw invalidCode();
    await tx.delete(backupCodes).where(eq(backupCodes.userId, userId));
    await tx.delete(totpFactors).where(eq(totpFactors.userId, userId));
    await forgetSecondFactors(d, userId);
    await emitUserUpdated(d, instance.id, userId);
    return { object: 'totp' as const, deleted: true };
  });
}

/**
 * Turns off a user's second factor as an operator or the backend (DELETE /v1/users/:id/mfa):
 * the TOTP factor (verified or pending) and every backup code go, with no proof asked and
 * whatever `mfa_required` says (such a user is then asked to set MFA up at the next sign-in).
 * Emits user.updated when the user had a verified factor. Answers `{user_id}` as Clerk does.
 * Runs in the router's audited transaction.
 */
export async function removeAllMfa(deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>, instanceId: string, userId: string) {
  const before = await getUser(deps, instanceId, userId);
  await deps.db.delete(backupCodes).where(eq(backupCodes.userId, userId));
  await deps.db.delete(totpFactors).where(and(eq(totpFactors.userId, userId), eq(totpFactors.instanceId, instanceId)));
  await forgetSecondFactors(deps, userId);
  if (before.two_factor_enabled) await emitUserUpdated(deps, instanceId, userId);
  return { user_id: userId };
}

/** user.updated carries the full user (two_factor_enabled changed). */
async function emitUserUpdated(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  await emitEvent(deps, instanceId, 'user.updated', await getUser(deps, instanceId, userId));
}

/**
 * A second factor was proved on the session outside a reverification (the sign-in's second
 * step): it counts as fresh (auth/reverification.ts). Enrolling one proves nothing: it shows
 * only that the caller holds the secret the server just handed to that same session.
 */
export async function recordSecondFactor(deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>, sessionId: string) {
  await updateSessions(deps, { secondFactorVerifiedAt: deps.clock.now() }, eq(sessions.id, sessionId));
}

/** The user no longer has a second factor: no session of theirs counts one as proved (their `fva` says -1 again). */
async function forgetSecondFactors(deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>, userId: string) {
  await updateSessions(
    deps,
    { secondFactorVerifiedAt: null },
    and(eq(sessions.userId, userId), isNotNull(sessions.secondFactorVerifiedAt)),
  );
}
