/** `meta.reason` values of SSO connections and sign-ins; never renamed (docs/conventions.md, "Stable reasons"). */
export const REASONS = {
  domain_not_verified: 'domain_not_verified',
  domain_taken: 'domain_taken',
  metadata_invalid: 'metadata_invalid',
  metadata_unreachable: 'metadata_unreachable',
  no_connection: 'no_connection',
  // Refused sign-ins (FORBIDDEN on the SSO pages; the audit entry sso.sign_in_failed names the reason).
  invalid_signature: 'invalid_signature',
  wrong_audience: 'wrong_audience',
  wrong_recipient: 'wrong_recipient',
  wrong_destination: 'wrong_destination',
  wrong_issuer: 'wrong_issuer',
  expired: 'expired',
  replayed: 'replayed',
  in_response_to_mismatch: 'in_response_to_mismatch',
  idp_error: 'idp_error',
  invalid_response: 'invalid_response',
  no_assertion: 'no_assertion',
  no_email: 'no_email',
  email_not_verified: 'email_not_verified',
  email_domain_mismatch: 'email_domain_mismatch',
  user_banned: 'user_banned',
  user_locked: 'user_locked',
  discovery_failed: 'discovery_failed',
  oidc_callback_failed: 'oidc_callback_failed',
  idp_initiated_disabled: 'idp_initiated_disabled',
  connection_inactive: 'connection_inactive',
  flow_binding_mismatch: 'flow_binding_mismatch',
} as const;
export type SsoReason = keyof typeof REASONS;

declare module '../http/errors' {
  interface ReasonsByDomain {
    sso: typeof REASONS;
  }
}
