import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { totpFactors } from '../db/schema';
import { AppError } from '../http/errors';
import type { SessionReverification } from '../db/schema';
import { REASONS } from './reasons';

/**
 * How recently a session's factors were proved (reverification; the flows that prove them
 * again are server/auth/reverification.ts). Each session records when its user last proved a
 * first factor (its sign-in, then each reverification) and a second factor (TOTP, a backup
 * code or a passkey: at sign-in or reverification — never by enrolling one). The session token
 * carries their ages in minutes as `fva`, read the way Clerk's SDKs read it (`has()` in
 * `@clerk/shared/authorization`): the second slot is -1 only when the user has no second factor.
 */
export type VerificationLevel = SessionReverification['level'];
export const VERIFICATION_LEVELS = ['first_factor', 'second_factor', 'multi_factor'] as const satisfies readonly VerificationLevel[];

export interface ReverificationRequirement {
  level: VerificationLevel;
  afterMinutes: number;
}

/** Clerk's `strict`: a second factor (the first for a user without one) within 10 minutes. */
const STRICT: ReverificationRequirement = { level: 'second_factor', afterMinutes: 10 };

/** The requirement of the instance's sensitive actions: Clerk's strict level within the instance's window. */
export const requirementOf = (settings: { reverification_window_minutes: number }): ReverificationRequirement => ({
  level: STRICT.level,
  afterMinutes: settings.reverification_window_minutes,
});

const MINUTE = 60_000;

/**
 * The age of a factor the session never proved although the user has it (signed in before
 * enrolling it), and of every factor of an impersonation session: no requirement accepts it.
 * A finite number, since Clerk's SDKs treat anything else as malformed.
 */
const NEVER_PROVED = 2 ** 31 - 1;

/** What the factor ages are computed from: a session row, or the columns a token's signer read. */
export interface FactorTimes {
  createdAt: number;
  firstFactorVerifiedAt: number | null;
  secondFactorVerifiedAt: number | null;
  /** An impersonation's actor: its session proved nothing of the user. */
  actor?: unknown;
}

const firstFactorAt = (s: FactorTimes) => s.firstFactorVerifiedAt ?? s.createdAt;

/**
 * `fva`: whole minutes since each factor was proved on the session, `[first, second]`. The
 * second is -1 when the user has no second factor, NEVER_PROVED when they have one this session
 * never proved; an impersonation proved neither.
 */
export function factorVerificationAge(s: FactorTimes, withSecondFactor: boolean, now: number): [number, number] {
  const age = (at: number | null) =>
    s.actor || at === null ? NEVER_PROVED : Math.min(NEVER_PROVED, Math.max(0, Math.floor((now - at) / MINUTE)));
  return [age(firstFactorAt(s)), withSecondFactor ? age(s.secondFactorVerifiedAt) : -1];
}

/**
 * Whether factor ages satisfy the requirement, as Clerk's `has({ reverification })` reads
 * them: a user without a second factor (-1) satisfies second_factor and multi_factor with the first.
 */
export function meetsRequirement([first, second]: [number, number], r: ReverificationRequirement): boolean {
  const fresh = (age: number) => age !== -1 && age < r.afterMinutes;
  if (r.level === 'first_factor' || second === -1) return fresh(first);
  return r.level === 'second_factor' ? fresh(second) : fresh(first) && fresh(second);
}

export const reverificationRequired = (r: ReverificationRequirement) =>
  new AppError('REVERIFICATION_REQUIRED', {
    message: 'Verify your identity again to do this (the session’s factors were not verified recently enough).',
    meta: { reason: REASONS.reverification_required, session_verification: { level: r.level, after_minutes: r.afterMinutes } },
  });

/** Whether the user has a verified second factor (TOTP; backup codes come with it). */
export async function hasSecondFactor(db: Db, userId: string): Promise<boolean> {
  const [row] = await db
    .select({ userId: totpFactors.userId })
    .from(totpFactors)
    .where(and(eq(totpFactors.userId, userId), eq(totpFactors.status, 'verified')));
  return row !== undefined;
}
