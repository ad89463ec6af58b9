/**
 * Every `meta.reason` the waitlist routes answer with. Clients branch on these: a reason is
 * never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  no_waitlist: 'no_waitlist',
  already_on_waitlist: 'already_on_waitlist',
  already_user: 'already_user',
  completed: 'completed',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    waitlist: typeof REASONS;
  }
}
