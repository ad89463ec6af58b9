/**
 * Every `meta.reason` social sign-in answers with. Clients branch on these: a reason is
 * never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  unknown_provider: 'unknown_provider',
  too_many_providers: 'too_many_providers',
  state_invalid: 'state_invalid',
  client_mismatch: 'client_mismatch',
  flow_binding_mismatch: 'flow_binding_mismatch',
  provider_error: 'provider_error',
  token_invalid: 'token_invalid',
  email_missing: 'email_missing',
  email_not_verified: 'email_not_verified',
  /** The mock provider (kind `mock`) exists on test instances only. */
  mock_provider_test_only: 'mock_provider_test_only',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    social: typeof REASONS;
  }
}
