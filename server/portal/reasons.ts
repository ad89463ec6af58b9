/** `meta.reason` values of the admin portal; never renamed (docs/conventions.md, "Stable reasons"). */
export const REASONS = {
  link_invalid: 'link_invalid',
  link_used: 'link_used',
  link_expired: 'link_expired',
  session_missing: 'session_missing',
  session_expired: 'session_expired',
  intent_not_allowed: 'intent_not_allowed',
  test_required: 'test_required',
  test_pending: 'test_pending',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    portal: typeof REASONS;
  }
}
