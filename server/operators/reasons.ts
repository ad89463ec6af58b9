/**
 * Every `meta.reason` the console account routes answer with. Clients branch on these: a
 * reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  role_required: 'role_required',
  role_too_high: 'role_too_high',
  invitation_invalid: 'invitation_invalid',
  email_mismatch: 'email_mismatch',
  sign_in_required: 'sign_in_required',
  last_owner: 'last_owner',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    operators: typeof REASONS;
  }
}
