/**
 * Every `meta.reason` the session, sign-in token and FAPI credential checks answer with.
 * Clients branch on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  missing: 'missing',
  malformed: 'malformed',
  wrong_instance: 'wrong_instance',
  session_not_found: 'session_not_found',
  sessions_version: 'sessions_version',
  expired: 'expired',
  used: 'used',
  revoked: 'revoked',
  invalid: 'invalid',
  organizations_disabled: 'organizations_disabled',
  /** A route guarded by reverification: the session's factors were not proved recently enough (server/auth/reverification.ts). */
  reverification_required: 'reverification_required',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    sessions: typeof REASONS;
  }
}
