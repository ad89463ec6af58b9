import { AppError } from '../http/errors';
import type { SessionReverification } from '../db/schema';
import { REASONS } from './reasons';

/**
 * How recently a session's factors were proved (Clerk's reverification; the flows that prove
 * them again are server/auth/reverification.ts). Each session records when its user last
 * proved a first factor (its sign-in, then each reverification) and a second factor (TOTP or
 * a backup code); the session token carries their ages in minutes as `fva`.
 */
export type VerificationLevel = SessionReverification['level'];
export const VERIFICATION_LEVELS = ['first_factor', 'second_factor', 'multi_factor'] as const satisfies readonly VerificationLevel[];

export interface ReverificationRequirement {
  level: VerificationLevel;
  afterMinutes: number;
}

/** Clerk's `strict`: a second factor (the first for a user without one) within 10 minutes. */
export const STRICT: ReverificationRequirement = { level: 'second_factor', afterMinutes: 10 };

const MINUTE = 60_000;

/** What the factor ages are computed from: a session row, or the columns a token's signer read. */
export interface FactorTimes {
  createdAt: number;
  firstFactorVerifiedAt: number | null;
  secondFactorVerifiedAt: number | null;
}

const firstFactorAt = (s: FactorTimes) => s.firstFactorVerifiedAt ?? s.createdAt;

/** Whole minutes since each factor was proved on the session: `[first, second]`, -1 for a second factor never proved. */
export function factorVerificationAge(s: FactorTimes, now: number): [number, number] {
  const age = (at: number) => Math.max(0, Math.floor((now - at) / MINUTE));
  return [age(firstFactorAt(s)), s.secondFactorVerifiedAt === null ? -1 : age(s.secondFactorVerifiedAt)];
}

export const reverificationRequired = (r: ReverificationRequirement) =>
  new AppError('REVERIFICATION_REQUIRED', {
    message: 'Verify your identity again to do this (the session’s factors were not verified recently enough).',
    meta: { reason: REASONS.reverification_required, session_verification: { level: r.level, after_minutes: r.afterMinutes } },
  });

/** Whether the session's factors satisfy the requirement; `withSecondFactor`: the user has one (TOTP). */
export function meetsRequirement(s: FactorTimes, withSecondFactor: boolean, r: ReverificationRequirement, now: number): boolean {
  const fresh = (at: number | null) => at !== null && now - at < r.afterMinutes * MINUTE;
  const first = fresh(firstFactorAt(s));
  const second = fresh(s.secondFactorVerifiedAt);
  if (r.level === 'first_factor') return first;
  if (!withSecondFactor) return first;
  return r.level === 'second_factor' ? second : first && second;
}

