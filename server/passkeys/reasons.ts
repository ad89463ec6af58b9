/**
 * Every `meta.reason` of passkeys (registration, sign-in, second factor). Clients branch on
 * these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  passkeys_disabled: 'passkeys_disabled',
  challenge_invalid: 'challenge_invalid',
  verification_failed: 'verification_failed',
  unknown_credential: 'unknown_credential',
  sign_count_regressed: 'sign_count_regressed',
  /** A genuine answer overtaken by a later one of the same authenticator: refused alone, the passkey stays usable. */
  sign_count_late: 'sign_count_late',
  passkey_disabled: 'passkey_disabled',
  credential_exists: 'credential_exists',
  too_many_passkeys: 'too_many_passkeys',
  session_pending: 'session_pending',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    passkeys: typeof REASONS;
  }
}
