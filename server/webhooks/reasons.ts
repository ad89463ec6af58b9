/**
 * Every `meta.reason` the webhook routes answer with. Clients branch on these: a reason is
 * never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  unknown_event_type: 'unknown_event_type',
  scheme_not_allowed: 'scheme_not_allowed',
  https_required: 'https_required',
  credentials_not_allowed: 'credentials_not_allowed',
  private_address: 'private_address',
  endpoint_disabled: 'endpoint_disabled',
  /** A test event of a type the endpoint does not subscribe to. */
  not_subscribed: 'not_subscribed',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    webhooks: typeof REASONS;
  }
}
