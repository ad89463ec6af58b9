/**
 * Every `meta.reason` the email and SMS routes answer with. Clients branch on these: a
 * reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  live_instance: 'live_instance',
  no_verified_email_address: 'no_verified_email_address',
  unknown_variable: 'unknown_variable',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    email: typeof REASONS;
  }
}
