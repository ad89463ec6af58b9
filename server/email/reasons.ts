/**
 * Every `meta.reason` the email and SMS routes answer with. Clients branch on these: a
 * reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  live_instance: 'live_instance',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    email: typeof REASONS;
  }
}
