import { ApiError, NetworkError } from '../api-client';

/**
 * The one place FAPI errors become copy: an error code (and its meta) → a key of the
 * `hosted.errors` catalog with its values, and the form field it concerns (meta.param).
 * Unknown errors fall back to `generic`. Wrong identifiers and wrong passwords map to the
 * same message: the server makes them look alike and so must the page.
 */
export type FapiErrorInfo = {
  key: string;
  values?: Record<string, string | number>;
  /** The request parameter the error is about, when it concerns one field. */
  param?: string;
  /** The attempt is over: the page should send the visitor back to its start. */
  restart?: boolean;
};

const reasonOf = (e: ApiError) => (typeof e.meta.reason === 'string' ? e.meta.reason : undefined);
const secondsOf = (e: ApiError, fallback = 30) => Math.max(1, Math.ceil(e.retryAfter ?? fallback));

function validation(e: ApiError): FapiErrorInfo {
  const param = e.param;
  const reason = reasonOf(e);
  if (reason === 'required') return { key: 'required', param };
  if (param === 'password') {
    if (reason === 'too_short')
      return { key: 'passwordTooShort', param, values: { min: typeof e.meta.min_length === 'number' ? e.meta.min_length : 8 } };
    if (reason === 'missing_uppercase') return { key: 'passwordNeedsUppercase', param };
    if (reason === 'missing_lowercase') return { key: 'passwordNeedsLowercase', param };
    if (reason === 'missing_digit') return { key: 'passwordNeedsDigit', param };
    if (reason === 'missing_symbol') return { key: 'passwordNeedsSymbol', param };
    if (reason === 'too_long') return { key: 'passwordTooLong', param };
    if (reason === 'matches_identifier') return { key: 'passwordMatchesIdentifier', param };
  }
  if (reason === 'password_compromised') return { key: 'passwordCompromised', param };
  if ((reason === 'too_big' || reason === 'too_long') && typeof e.meta.max_length === 'number')
    return { key: 'tooLong', param, values: { max: e.meta.max_length } };
  if (reason === 'incorrect_password') return { key: 'passwordIncorrect', param };
  if (reason === 'unverified') return { key: 'emailUnverified', param };
  if (param === 'code' && reason === 'incorrect_code') return { key: 'codeIncorrect', param };
  if (reason === 'taken') {
    if (param === 'email_address') return { key: 'emailTaken', param };
    if (param === 'username') return { key: 'usernameTaken', param };
  }
  if (param === 'email_address') return { key: 'emailInvalid', param };
  if (param === 'username') return { key: 'usernameInvalid', param };
  if (param === 'identifier') return { key: 'identifierInvalid', param };
  if (param === 'name') return { key: 'invalidValue', param };
  return { key: 'invalidValue', param };
}

export function describeFapiError(error: unknown): FapiErrorInfo {
  if (error instanceof NetworkError) return { key: 'network' };
  if (!(error instanceof ApiError)) return { key: 'generic' };
  const reason = reasonOf(error);
  switch (error.code) {
    case 'CREDENTIALS_INVALID':
      return { key: 'credentialsInvalid', param: 'password' };
    case 'CODE_INCORRECT': {
      const remaining = error.meta.remaining_attempts;
      return typeof remaining === 'number'
        ? { key: 'codeIncorrectRemaining', values: { count: remaining }, param: 'code' }
        : { key: 'codeIncorrect', param: 'code' };
    }
    case 'PASSKEY_INVALID':
      if (reason === 'sign_count_regressed') return { key: 'passkeyCloned' };
      if (reason === 'passkey_disabled') return { key: 'passkeyDisabled' };
      if (reason === 'unknown_credential') return { key: 'passkeyUnknown' };
      return { key: 'passkeyInvalid' };
    case 'CODE_EXPIRED':
      if (reason === 'not_prepared') return { key: 'codeNotSent', param: 'code' };
      if (reason === 'used') return { key: 'codeUsed', param: 'code' };
      return { key: 'codeExpired', param: 'code' };
    case 'TOO_MANY_ATTEMPTS':
      if (reason === 'code_reissue') return { key: 'codeReissue', values: { seconds: secondsOf(error) } };
      if (reason === 'code_attempts') return { key: 'codeAttempts', param: 'code' };
      if (reason === 'second_factor_attempts') return { key: 'secondFactorAttempts', restart: true };
      return { key: 'tooManyAttempts', values: { seconds: secondsOf(error, 60) } };
    case 'RATE_LIMITED':
      return { key: 'rateLimited', values: { seconds: secondsOf(error, 10) } };
    case 'SIGN_UP_NOT_ALLOWED':
      return reason === 'restricted' ? { key: 'signUpRestricted', param: 'email_address' } : { key: 'signUpClosed' };
    case 'VALIDATION_FAILED':
      return validation(error);
    case 'USER_BANNED':
      return { key: 'userBanned' };
    case 'TICKET_INVALID':
      if (reason === 'expired') return { key: 'ticketExpired' };
      if (reason === 'used') return { key: 'ticketUsed' };
      if (reason === 'revoked') return { key: 'ticketRevoked' };
      return { key: 'ticketInvalid' };
    case 'NOT_FOUND':
      return { key: 'attemptExpired', restart: true };
    case 'CONFLICT':
      if (reason === 'too_many_tokens') return { key: 'tooManyTokens' };
      if (reason === 'totp_enabled') return { key: 'totpAlreadyEnabled' };
      if (reason === 'not_enrolled') return { key: 'totpNotEnabled' };
      if (reason === 'primary_identifier') return { key: 'primaryEmail' };
      if (reason === 'already_verified') return { key: 'emailAlreadyVerified' };
      if (reason === 'too_many_identifiers') return { key: 'tooManyEmails' };
      if (reason === 'no_primary_email') return { key: 'noPrimaryEmail' };
      return { key: 'conflict', restart: true };
    case 'UNAUTHENTICATED':
      return { key: 'signedOut', restart: true };
    case 'FORBIDDEN':
      if (reason === 'session_pending') return { key: 'sessionPending' };
      if (reason === 'mfa_required') return { key: 'mfaRequired' };
      if (reason === 'impersonation') return { key: 'impersonation' };
      if (reason === 'delete_self_disabled') return { key: 'deleteSelfDisabled' };
      return { key: 'forbidden' };
    case 'ORIGIN_NOT_ALLOWED':
      return { key: 'originNotAllowed' };
    case 'REVERIFICATION_REQUIRED':
      return { key: 'reverificationRequired' };
    default:
      return { key: 'generic' };
  }
}
