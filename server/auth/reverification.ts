import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { sessions, type SessionReverification } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError, notFound, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { assertNotLocked, assertUserRowNotLocked, recordFailedAttempt } from '../protection/lockout';
import { maskEmail } from '../protection/risk';
import { checkGuessedPassword, storedPasswordOf } from './password-guess';
import { limitMfaAttempts } from '../users/me';
import { hasSecondFactor, invalidCode, mfaStatus, verifySecondFactor } from '../users/mfa';
import { getUser } from '../users/users';
import { checkCode, latestCode, VERIFICATION_CODE_TTL_MS, verificationView } from '../verification/codes';
import { sendCode } from '../verification/send-code';
import { REASONS } from './reasons';
import { REASONS as USER_REASONS } from '../users/reasons';
import {
  meetsRequirement,
  reverificationRequired,
  factorVerificationAge,
  type ReverificationRequirement,
  type VerificationLevel,
} from '../sessions/factor-verification';
import { settleOverdue } from '../sessions/sessions';
import { updateSessions } from '../sessions/session-state';
import { hasPasskey } from '../passkeys/passkeys';
import { assertionOptions, verifyAssertion } from '../passkeys/sign-in';
import type { RelyingParty } from '../passkeys/relying-party';
import type { AuthenticationResponseJSON } from '../passkeys/webauthn';

/**
 * Reverification (Clerk's "step-up" of a signed-in session): sensitive account changes want
 * the session's factors proved recently, not a code in the request. Each session records when
 * its user last proved a first factor (its sign-in, then each reverification) and a second
 * factor (TOTP, a backup code or a passkey: at sign-in, at reverification — never by enrolling
 * one); the session token carries their ages in minutes (`fva`, sessions/factor-verification.ts)
 * and Clerk's session resource as `factor_verification_age`.
 *
 * A verification is started on a session for a level (`first_factor`, `second_factor`,
 * `multi_factor`), then its factors are attempted — the password or an emailed code first,
 * a TOTP or backup code second, a passkey for both at once (it is two factors by itself) —
 * through the same checks as a sign-in: the password's constant-time verify and the account
 * lockout, TOTP replay protection and single-use backup codes, the emailed code's own tries,
 * the passkey's challenge and counter; and the per-user limit of code attempts
 * (limitMfaAttempts). Routes guarded by FapiGuard.reverification answer 403
 * REVERIFICATION_REQUIRED with `meta.session_verification: {level, after_minutes}` until then.
 */

type D = Deps;
type SessionRow = typeof sessions.$inferSelect;

/** A verification started and not finished within this long is over: start again. */
const REVERIFICATION_TTL_MS = VERIFICATION_CODE_TTL_MS;

/**
 * The router's check of a guarded route (FapiGuard.reverification): the signed-in session's
 * factors were proved within the requirement, else 403 REVERIFICATION_REQUIRED. A personal
 * access token has no session to verify: refused the same way.
 */
export async function assertReverified(
  deps: Pick<Deps, 'db' | 'clock'>,
  instance: InstanceContext,
  me: { userId: string; sessionId: string | null },
  r: ReverificationRequirement,
) {
  const [row] = me.sessionId
    ? await deps.db
        .select()
        .from(sessions)
        .where(and(eq(sessions.id, me.sessionId), eq(sessions.instanceId, instance.id)))
    : [];
  if (!row || !meetsRequirement(factorVerificationAge(row, await hasSecondFactor(deps.db, me.userId), deps.clock.now()), r))
    throw reverificationRequired(r);
}

/** A live, active session of this client that is not an impersonation: the one a verification is about (404 for another client's). */
async function verifiableSession(deps: D, instance: InstanceContext, clientId: string | null, sessionId: string): Promise<SessionRow> {
  if (!clientId) throw new AppError('UNAUTHENTICATED', { message: 'Sign in first: this device has no session.' });
  const [row] = await deps.db
    .select()
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.instanceId, instance.id), eq(sessions.clientId, clientId)));
  if (!row) throw notFound('session');
  const dead = await settleOverdue(deps, row);
  if (dead) throw dead;
  // A session pending on its setup_mfa task may verify (enrolling is guarded); one awaiting its second factor may not.
  if (row.status === 'pending' && (await hasSecondFactor(deps.db, row.userId))) {
    throw new AppError('FORBIDDEN', {
      message: 'This session is pending: complete its tasks first.',
      meta: { reason: USER_REASONS.session_pending, session_id: row.id },
    });
  }
  if (row.actor)
    throw new AppError('FORBIDDEN', {
      message: 'An impersonation session cannot be verified again.',
      meta: { reason: USER_REASONS.impersonation },
    });
  return row;
}

/** The verification in progress on the session (409 when none was started, or it is over). */
function inProgress(deps: Pick<Deps, 'clock'>, row: SessionRow, statuses: SessionReverification['status'][]): SessionReverification {
  const v = row.reverification;
  if (!v || v.started_at + REVERIFICATION_TTL_MS <= deps.clock.now()) {
    throw new AppError('CONFLICT', {
      message: 'Start a verification of this session first (POST …/verify).',
      meta: { reason: REASONS.reverification_not_started },
    });
  }
  if (!statuses.includes(v.status))
    throw new AppError('CONFLICT', {
      message: `This verification is ${v.status}, not ${statuses.join(' or ')}.`,
      meta: { status: v.status },
    });
  return v;
}

/** The factors a user can prove: a password, a code to a verified email address; TOTP and backup codes; a passkey (either step, both at once). */
async function factorsOf(deps: D, instance: InstanceContext, userId: string) {
  const user = await getUser(deps, instance.id, userId);
  const passkey = instance.settings.sign_in_methods.passkey && (await hasPasskey(deps, userId));
  const first: {
    strategy: 'password' | 'email_code' | 'passkey';
    email_address_id?: string;
    safe_identifier?: string;
    primary?: boolean;
  }[] = [];
  if (user.password_enabled) first.push({ strategy: 'password' });
  for (const e of user.email_addresses) {
    if (e.verification?.status !== 'verified') continue;
    first.push({
      strategy: 'email_code',
      email_address_id: e.id,
      safe_identifier: maskEmail(e.email_address),
      primary: e.id === user.primary_email_address_id,
    });
  }
  if (passkey) first.push({ strategy: 'passkey' });
  const mfa = await mfaStatus(deps, userId);
  const second: { strategy: 'totp' | 'backup_code' | 'passkey' }[] = [];
  if (mfa.totp_enabled) second.push({ strategy: 'totp' });
  if (mfa.backup_codes_remaining > 0) second.push({ strategy: 'backup_code' });
  if (passkey && mfa.totp_enabled) second.push({ strategy: 'passkey' });
  return { first, second, withSecondFactor: mfa.totp_enabled, emails: user.email_addresses };
}

/** The status a verification of `level` starts in (or moves to once the first factor is proved). */
function nextStatus(level: VerificationLevel, withSecondFactor: boolean, firstDone: boolean): SessionReverification['status'] {
  if (level === 'first_factor' || !withSecondFactor) return firstDone ? 'complete' : 'needs_first_factor';
  if (level === 'second_factor') return 'needs_second_factor';
  return firstDone ? 'needs_second_factor' : 'needs_first_factor';
}

/** The verification as the FAPI answers it. */
async function verificationAnswer(deps: D, instance: InstanceContext, row: SessionRow) {
  const v = row.reverification!;
  const factors = await factorsOf(deps, instance, row.userId);
  const now = deps.clock.now();
  const code = v.first_factor_strategy === 'email_code' ? await latestCode(deps, row.id, 'reauthentication') : null;
  const firstDone = v.status !== 'needs_first_factor' && v.first_factor_strategy !== null;
  const first =
    v.first_factor_strategy === null
      ? null
      : v.first_factor_strategy === 'email_code'
        ? verificationView('email_code', code, now, firstDone)
        : {
            object: 'verification' as const,
            status: firstDone ? ('verified' as const) : ('unverified' as const),
            strategy: v.first_factor_strategy,
            attempts: null,
            expire_at: null,
          };
  const second =
    v.second_factor_strategy === null
      ? null
      : {
          object: 'verification' as const,
          status: v.status === 'complete' ? ('verified' as const) : ('unverified' as const),
          strategy: v.second_factor_strategy,
          attempts: null,
          expire_at: null,
        };
  return {
    object: 'session_verification' as const,
    id: `sv_${row.id}`,
    session_id: row.id,
    status: v.status,
    level: v.level,
    supported_first_factors: factors.first,
    supported_second_factors: factors.second.length ? factors.second : null,
    first_factor_verification: first,
    second_factor_verification: second,
    factor_verification_age: factorVerificationAge(row, factors.withSecondFactor, now),
    started_at: v.started_at,
  };
}

async function saveVerification(deps: D, row: SessionRow, set: Partial<typeof sessions.$inferInsert>): Promise<SessionRow> {
  const [next] = await updateSessions(deps, { ...set, updatedAt: deps.clock.now() }, eq(sessions.id, row.id));
  if (!next) throw new AppError('CONFLICT', { message: 'The session changed meanwhile; try again.' });
  return next;
}

/** Starts (or restarts) a verification of the session for `level`. */
export async function startSessionVerification(
  deps: D,
  instance: InstanceContext,
  clientId: string | null,
  sessionId: string,
  level: VerificationLevel,
) {
  const row = await verifiableSession(deps, instance, clientId, sessionId);
  const withSecond = await hasSecondFactor(deps.db, row.userId);
  const v: SessionReverification = {
    level,
    status: nextStatus(level, withSecond, false),
    started_at: deps.clock.now(),
    first_factor_strategy: null,
    second_factor_strategy: null,
  };
  return verificationAnswer(deps, instance, await saveVerification(deps, row, { reverification: v }));
}

/** A passkey step's answer: the assertion options as `nonce` (JSON), as at sign-in; the challenge is the session's. */
async function withPasskeyOptions(deps: D, instance: InstanceContext, rp: RelyingParty, row: SessionRow, step: 'first' | 'second') {
  const { options, expiresAt } = await assertionOptions(deps, instance, rp, ceremonyOf(row), 'reverification');
  const answer = await verificationAnswer(deps, instance, row);
  const verification = {
    object: 'verification' as const,
    status: 'unverified' as const,
    strategy: 'passkey',
    attempts: null,
    expire_at: expiresAt,
    nonce: JSON.stringify(options),
  };
  return { ...answer, [step === 'first' ? 'first_factor_verification' : 'second_factor_verification']: verification };
}

/** A reverification's passkey ceremony is bound to the session, and offers only its user's passkeys. */
const ceremonyOf = (row: SessionRow) => ({ id: row.id, userId: row.userId, identifier: row.userId });

/**
 * Prepares the first factor: `email_code` sends a code (to `email_address_id`, a verified
 * address of the user's; default the primary one), `passkey` answers the assertion options;
 * a password needs nothing.
 */
export async function prepareFirstFactorVerification(
  deps: D,
  instance: InstanceContext,
  clientId: string | null,
  sessionId: string,
  input: { strategy: 'email_code' | 'password' | 'passkey'; email_address_id?: string },
  request: { acceptLanguage: string | null; rp: RelyingParty },
) {
  const row = await verifiableSession(deps, instance, clientId, sessionId);
  const v = inProgress(deps, row, ['needs_first_factor']);
  const factors = await factorsOf(deps, instance, row.userId);
  if (!factors.first.some((f) => f.strategy === input.strategy))
    throw unsupported(
      'strategy',
      factors.first.map((f) => f.strategy),
    );
  if (input.strategy === 'email_code') {
    const offered = factors.first.filter((f) => f.strategy === 'email_code');
    const to = input.email_address_id
      ? offered.find((f) => f.email_address_id === input.email_address_id)
      : (offered.find((f) => f.primary) ?? offered[0]);
    if (!to) throw validationError('email_address_id', 'not_found', 'email_address_id is not one of your verified addresses.');
    const address = factors.emails.find((e) => e.id === to.email_address_id)!.email_address;
    await sendCode(deps, {
      instanceId: instance.id,
      attemptId: row.id,
      purpose: 'reauthentication',
      address,
      to: address,
      userId: row.userId,
      acceptLanguage: request.acceptLanguage,
    });
  }
  const saved = await saveVerification(deps, row, { reverification: { ...v, first_factor_strategy: input.strategy } });
  return input.strategy === 'passkey'
    ? withPasskeyOptions(deps, instance, request.rp, saved, 'first')
    : verificationAnswer(deps, instance, saved);
}

/** The account a reverification's wrong guesses count against. */
const lockTargetOf = (row: SessionRow) => ({ userId: row.userId, identifier: row.userId });

const passwordIncorrect = () => new AppError('CREDENTIALS_INVALID', { message: 'The password is incorrect.', meta: { param: 'password' } });

const unsupported = (param: string, offered: string[]) =>
  validationError(
    param,
    'invalid_value',
    offered.length ? `This verification takes ${offered.join(' or ')}.` : 'This account has no factor for this step.',
  );

/** A passkey's answer, with the relying party the request came by. */
export interface PasskeyAnswer {
  strategy: 'passkey';
  credential: AuthenticationResponseJSON;
  rp: RelyingParty;
}

/**
 * Proves the first factor: the password (the account lockout and its constant-time check, as
 * at sign-in) or the emailed code; a passkey proves both factors. The session's first factor
 * is then fresh.
 */
export async function attemptFirstFactorVerification(
  deps: D,
  instance: InstanceContext,
  clientId: string | null,
  sessionId: string,
  input: { strategy: 'password'; password: string } | { strategy: 'email_code'; code: string } | PasskeyAnswer,
  auditCtx: AuditContext,
) {
  const row = await verifiableSession(deps, instance, clientId, sessionId);
  const v = inProgress(deps, row, ['needs_first_factor']);
  if (input.strategy === 'passkey') return passkeyProved(deps, instance, row, v, input, auditCtx);
  await limitMfaAttempts(deps, instance.id, row.userId);
  if (input.strategy === 'password') {
    const stored = await storedPasswordOf(deps.db, instance.id, row.userId);
    if (stored) assertUserRowNotLocked(deps, instance, stored);
    await checkGuessedPassword(deps, instance, stored, input.password, lockTargetOf(row), auditCtx, passwordIncorrect);
  } else {
    // A wrong code is committed (its try counts) before it is answered.
    const check = await deps.db.transaction((tx) =>
      checkCode({ ...deps, db: tx }, { attemptId: row.id, purpose: 'reauthentication', code: input.code }),
    );
    if (!check.ok) throw check.error;
  }
  const withSecond = await hasSecondFactor(deps.db, row.userId);
  const status = nextStatus(v.level, withSecond, true);
  return factorProved(
    deps,
    instance,
    row,
    { ...v, status, first_factor_strategy: input.strategy },
    { firstFactorVerifiedAt: deps.clock.now() },
    auditCtx,
  );
}

/** Prepares a second factor: TOTP and backup codes need nothing sent (only the strategy is checked); a passkey answers the assertion options. */
export async function prepareSecondFactorVerification(
  deps: D,
  instance: InstanceContext,
  clientId: string | null,
  sessionId: string,
  strategy: 'totp' | 'backup_code' | 'passkey',
  rp: RelyingParty,
) {
  const row = await verifiableSession(deps, instance, clientId, sessionId);
  const v = inProgress(deps, row, ['needs_second_factor']);
  const factors = await factorsOf(deps, instance, row.userId);
  if (!factors.second.some((f) => f.strategy === strategy))
    throw unsupported(
      'strategy',
      factors.second.map((f) => f.strategy),
    );
  const saved = await saveVerification(deps, row, { reverification: { ...v, second_factor_strategy: strategy } });
  return strategy === 'passkey' ? withPasskeyOptions(deps, instance, rp, saved, 'second') : verificationAnswer(deps, instance, saved);
}

/**
 * Proves the second factor: a current TOTP code (never one seen before) or an unused backup
 * code (spent); a wrong one counts towards the account lockout, as at sign-in. Or a passkey.
 */
export async function attemptSecondFactorVerification(
  deps: D,
  instance: InstanceContext,
  clientId: string | null,
  sessionId: string,
  input: { strategy: 'totp' | 'backup_code'; code: string } | PasskeyAnswer,
  auditCtx: AuditContext,
) {
  const row = await verifiableSession(deps, instance, clientId, sessionId);
  const v = inProgress(deps, row, ['needs_second_factor']);
  if (input.strategy === 'passkey') return passkeyProved(deps, instance, row, v, input, auditCtx);
  await assertNotLocked(deps, instance, lockTargetOf(row));
  await limitMfaAttempts(deps, instance.id, row.userId);
  if (!(await verifySecondFactor(deps, instance.id, row.userId, input.strategy, input.code))) {
    throw (await recordFailedAttempt(deps, instance, lockTargetOf(row), auditCtx)) ?? invalidCode();
  }
  return factorProved(
    deps,
    instance,
    row,
    { ...v, status: 'complete', second_factor_strategy: input.strategy },
    { secondFactorVerifiedAt: deps.clock.now() },
    auditCtx,
  );
}

/**
 * A passkey answers the session's challenge (server/passkeys/sign-in.ts: its user's passkey,
 * user verification, the counter): two factors at once, so the verification is complete
 * whichever step it was at.
 */
async function passkeyProved(
  deps: D,
  instance: InstanceContext,
  row: SessionRow,
  v: SessionReverification,
  input: PasskeyAnswer,
  auditCtx: AuditContext,
) {
  const factors = await factorsOf(deps, instance, row.userId);
  if (!factors.first.some((f) => f.strategy === 'passkey'))
    throw unsupported(
      'strategy',
      (v.status === 'needs_first_factor' ? factors.first : factors.second).map((f) => f.strategy),
    );
  await verifyAssertion(deps, instance, input.rp, ceremonyOf(row), 'reverification', input.credential, auditCtx);
  const now = deps.clock.now();
  const strategies = { first_factor_strategy: v.first_factor_strategy ?? 'passkey', second_factor_strategy: 'passkey' };
  return factorProved(
    deps,
    instance,
    row,
    { ...v, ...strategies, status: 'complete' },
    { firstFactorVerifiedAt: now, secondFactorVerifiedAt: now },
    auditCtx,
  );
}

/** Records a proved factor on the session, and audits it (`session.reverified`), in one transaction. */
async function factorProved(
  deps: D,
  instance: InstanceContext,
  row: SessionRow,
  v: SessionReverification,
  times: Pick<Partial<SessionRow>, 'firstFactorVerifiedAt' | 'secondFactorVerifiedAt'>,
  auditCtx: AuditContext,
) {
  const next = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const saved = await saveVerification(d, row, { ...times, reverification: v });
    const first = times.firstFactorVerifiedAt !== undefined;
    const second = times.secondFactorVerifiedAt !== undefined;
    const factor = first && second ? 'multi_factor' : second ? 'second_factor' : 'first_factor';
    const strategy = second ? v.second_factor_strategy : v.first_factor_strategy;
    await audit(d, {
      instanceId: instance.id,
      ...auditCtx,
      action: 'session.reverified',
      target: row.id,
      details: { level: v.level, factor, strategy, status: v.status },
    });
    return saved;
  });
  return verificationAnswer(deps, instance, next);
}
