/**
 * Every `meta.reason` attack protection and risk-based MFA answer with.
 * Clients branch on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  password_compromised: 'password_compromised',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    protection: typeof REASONS;
  }
}
