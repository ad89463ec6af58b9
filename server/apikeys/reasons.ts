/**
 * Every `meta.reason` the API key routes answer with. Clients branch on these: a reason is
 * never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  unknown: 'unknown',
  revoked: 'revoked',
  expired: 'expired',
  too_many_keys: 'too_many_keys',
  impersonation: 'impersonation',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    apikeys: typeof REASONS;
  }
}
