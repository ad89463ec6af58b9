/**
 * Every `meta.reason` the localization and email template routes answer with. Clients branch
 * on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  unsupported_locale: 'unsupported_locale',
  unknown_resource: 'unknown_resource',
  empty: 'empty',
  recipient_not_allowed: 'recipient_not_allowed',
  no_verified_email_address: 'no_verified_email_address',
  unknown_variable: 'unknown_variable',
  missing_required_variable: 'missing_required_variable',
  unknown_helper: 'unknown_helper',
  mjml_error: 'mjml_error',
  syntax_error: 'syntax_error',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    localization: typeof REASONS;
  }
}
