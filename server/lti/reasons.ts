/**
 * Every `meta.reason` of LTI 1.3: the platform registrations (BAPI, dashboard) and each
 * refusal of a login initiation or launch (400 LTI_LAUNCH_INVALID, shown on an HTML page).
 * A reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  platform_unknown: 'platform_unknown',
  platform_ambiguous: 'platform_ambiguous',
  request_invalid: 'request_invalid',
  id_token_malformed: 'id_token_malformed',
  key_unknown: 'key_unknown',
  jwks_unavailable: 'jwks_unavailable',
  signature_invalid: 'signature_invalid',
  issuer_mismatch: 'issuer_mismatch',
  audience_mismatch: 'audience_mismatch',
  azp_mismatch: 'azp_mismatch',
  token_expired: 'token_expired',
  token_not_yet_valid: 'token_not_yet_valid',
  state_invalid: 'state_invalid',
  nonce_invalid: 'nonce_invalid',
  nonce_replayed: 'nonce_replayed',
  deployment_not_allowed: 'deployment_not_allowed',
  message_type_unsupported: 'message_type_unsupported',
  version_unsupported: 'version_unsupported',
  resource_link_missing: 'resource_link_missing',
  target_link_uri_not_allowed: 'target_link_uri_not_allowed',
  user_banned: 'user_banned',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    lti: typeof REASONS;
  }
}
