/**
 * Every `meta.reason` the SMS routes and the pumping protection answer with. Clients branch
 * on these: a reason is never renamed (README, "Stable reasons").
 */
export const REASONS = {
  not_configured: 'not_configured',
  signature_invalid: 'signature_invalid',
  country_not_allowed: 'country_not_allowed',
  number_limit: 'number_limit',
  country_limit: 'country_limit',
  invalid_country_code: 'invalid_country_code',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    sms: typeof REASONS;
  }
}
