/**
 * Every `meta.reason` the localization and email template routes answer with. Clients branch
 * on these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  unknown_resource: 'unknown_resource',
  empty: 'empty',
  recipient_not_allowed: 'recipient_not_allowed',
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
