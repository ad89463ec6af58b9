/**
 * Every `meta.reason` the user, me, MFA and personal access token routes answer with.
 * Clients branch on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  busy: 'busy',
  identifier_required: 'identifier_required',
  matches_identifier: 'matches_identifier',
  cost_too_high: 'cost_too_high',
  conflict: 'conflict',
  required_together: 'required_together',
  session_pending: 'session_pending',
  personal_access_token: 'personal_access_token',
  impersonation: 'impersonation',
  too_many_tokens: 'too_many_tokens',
  totp_enabled: 'totp_enabled',
  not_enrolled: 'not_enrolled',
  mfa_required: 'mfa_required',
  incorrect_code: 'incorrect_code',
  incorrect_password: 'incorrect_password',
  strategy_not_allowed: 'strategy_not_allowed',
  too_many_identifiers: 'too_many_identifiers',
  already_verified: 'already_verified',
  primary_identifier: 'primary_identifier',
  unverified: 'unverified',
  no_primary_email: 'no_primary_email',
  delete_self_disabled: 'delete_self_disabled',
  password_compromised: 'password_compromised',
  too_short: 'too_short',
  too_long: 'too_long',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    users: typeof REASONS;
  }
}
