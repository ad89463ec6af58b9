/**
 * Every `meta.reason` the billing routes answer with. Clients branch on these: a reason is
 * never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  signature_invalid: 'signature_invalid',
  not_configured: 'not_configured',
  no_subscription: 'no_subscription',
  wrong_payer: 'wrong_payer',
  no_price: 'no_price',
  processor_error: 'processor_error',
  impersonation: 'impersonation',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    billing: typeof REASONS;
  }
}
