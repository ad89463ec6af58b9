/**
 * Every `meta.reason` sign-ins, sign-ups and verification codes answer with. Clients branch
 * on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  code_reissue: 'code_reissue',
  code_attempts: 'code_attempts',
  not_prepared: 'not_prepared',
  expired: 'expired',
  used: 'used',
  second_factor_attempts: 'second_factor_attempts',
  waitlist: 'waitlist',
  restricted: 'restricted',
  too_short: 'too_short',
  too_long: 'too_long',
  missing_uppercase: 'missing_uppercase',
  strategy_not_allowed: 'strategy_not_allowed',
  identifier_not_allowed: 'identifier_not_allowed',
  no_first_factor: 'no_first_factor',
  missing_lowercase: 'missing_lowercase',
  missing_digit: 'missing_digit',
  missing_symbol: 'missing_symbol',
  matches_identifier: 'matches_identifier',
  claim_invalid: 'claim_invalid',
  sso_required: 'sso_required',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    auth: typeof REASONS;
  }
}
