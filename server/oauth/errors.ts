import { AppError, type ErrorCode } from '../http/errors';

/** RFC 6749 §5.2 / RFC 6750 §3.1 / OIDC Core §3.1.2.6 error codes the provider answers. */
export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'access_denied'
  | 'invalid_token'
  | 'insufficient_scope'
  | 'login_required'
  | 'consent_required'
  | 'invalid_request_object'
  | 'request_uri_not_supported'
  | 'server_error'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'invalid_software_statement';

const CODE_FOR_STATUS: Record<number, ErrorCode> = { 400: 'MALFORMED_REQUEST', 401: 'INVALID_KEY', 403: 'FORBIDDEN' };

/**
 * An error the oauth protocol renders as `{error, error_description}` with this status
 * (`meta.oauth_error` names the OAuth code; the AppError code only picks the status).
 */
export function oauthError(error: OAuthErrorCode, description: string, status: 400 | 401 | 403 = 400): AppError {
  const code = error === 'invalid_token' ? 'TOKEN_INVALID' : CODE_FOR_STATUS[status]!;
  return new AppError(code, { message: description, meta: { oauth_error: error } });
}
