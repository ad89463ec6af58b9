/**
 * Every `meta.reason` sign-ins, sign-ups and verification codes answer with. Clients branch
 * on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  expired: 'expired',
  second_factor_attempts: 'second_factor_attempts',
  waitlist: 'waitlist',
  restricted: 'restricted',
  missing_uppercase: 'missing_uppercase',
  strategy_not_allowed: 'strategy_not_allowed',
  identifier_not_allowed: 'identifier_not_allowed',
  missing_lowercase: 'missing_lowercase',
  missing_digit: 'missing_digit',
  missing_symbol: 'missing_symbol',
  matches_identifier: 'matches_identifier',
  claim_invalid: 'claim_invalid',
  /** A sign-up's organization invitation token names no pending invitation to its email address. */
  invitation_invalid: 'invitation_invalid',
  /** A factor attempted on a session with no verification started (or one past its 10 minutes): server/auth/reverification.ts. */
  reverification_not_started: 'reverification_not_started',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    auth: typeof REASONS;
  }
}
