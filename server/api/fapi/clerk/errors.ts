/**
 * Latchkey's FAPI errors in Clerk's shape, so that Clerk's components show their own message
 * for each: `{errors: [{code, message, long_message, meta: {param_name}}], clerk_trace_id}`.
 * The status stays Latchkey's; Latchkey's code and reason stay in `meta` (`latchkey_code`,
 * `reason`) for logs and support.
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Latchkey code → Clerk code, when one code always means the same thing to Clerk's UI. */
const CODES: Record<string, string> = {
  CREDENTIALS_INVALID: 'form_password_incorrect',
  CODE_INCORRECT: 'form_code_incorrect',
  CODE_EXPIRED: 'verification_expired',
  RATE_LIMITED: 'too_many_requests',
  TOO_MANY_ATTEMPTS: 'too_many_requests',
  UNAUTHENTICATED: 'authentication_invalid',
  NOT_FOUND: 'resource_not_found',
  FORBIDDEN: 'not_allowed_access',
  SIGN_UP_NOT_ALLOWED: 'not_allowed_access',
  USER_BANNED: 'user_banned',
  USER_LOCKED: 'user_locked',
  // Clerk's useReverification opens its verification on this code; meta.session_verification says the level.
  REVERIFICATION_REQUIRED: 'session_reverification_required',
  MALFORMED_REQUEST: 'malformed_request_parameters',
  METHOD_NOT_ALLOWED: 'resource_not_found',
  CONFLICT: 'conflict',
};

/** Latchkey reasons Clerk has a code of its own for (its components show their own message for each). */
const REASON_CODES: Record<string, string> = {
  already_member: 'already_a_member_in_organization',
  membership_limit: 'organization_membership_quota_exceeded',
  last_admin: 'organization_minimum_permissions_needed',
};

/** Which parameter Clerk's form highlights for a code, when Latchkey names none. */
const PARAMS: Record<string, string> = { CREDENTIALS_INVALID: 'password', CODE_INCORRECT: 'code', CODE_EXPIRED: 'code' };

/** VALIDATION_FAILED by its reason (and field). */
function validationCode(param: string | undefined, reason: string | undefined): string {
  if (reason === 'taken') return param === 'username' ? 'form_username_exists' : 'form_identifier_exists';
  if (reason === 'required') return 'form_param_missing';
  // A wrong current password (password change, TOTP removal) and a wrong TOTP or backup code on /v1/me.
  if (reason === 'incorrect_password') return 'form_password_incorrect';
  if (reason === 'incorrect_code') return 'form_code_incorrect';
  if (param === 'password' && reason === 'too_short') return 'form_password_length_too_short';
  if (param === 'password' && reason === 'breached') return 'form_password_pwned';
  if (param === 'password') return 'form_password_validation_failed';
  if (reason === 'unknown_field') return 'form_param_unknown';
  return 'form_param_format_invalid';
}

function clerkError(e: Json): Json {
  const meta = isObject(e.meta) ? e.meta : {};
  const code = String(e.code);
  const param = typeof meta.param === 'string' ? meta.param : PARAMS[code];
  const reason = typeof meta.reason === 'string' ? meta.reason : undefined;
  const clerkCode =
    (reason && REASON_CODES[reason]) ??
    (code === 'VALIDATION_FAILED' ? validationCode(param, reason) : (CODES[code] ?? code.toLowerCase()));
  const message = typeof e.message === 'string' ? e.message : code;
  return {
    code: clerkCode,
    message,
    long_message: typeof e.long_message === 'string' ? e.long_message : message,
    meta: { ...meta, ...(param ? { param_name: param } : {}), latchkey_code: code },
  };
}

export function clerkErrorBody(body: unknown): unknown {
  if (!isObject(body) || !Array.isArray(body.errors)) return body;
  return { errors: body.errors.filter(isObject).map(clerkError), clerk_trace_id: body.trace_id, trace_id: body.trace_id };
}
