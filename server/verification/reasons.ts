/**
 * Every `meta.reason` verification codes answer with (sign-ins, sign-ups, identifiers, domains).
 * Clients branch on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  code_reissue: 'code_reissue',
  not_prepared: 'not_prepared',
  expired: 'expired',
  used: 'used',
  code_attempts: 'code_attempts',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    verification: typeof REASONS;
  }
}
