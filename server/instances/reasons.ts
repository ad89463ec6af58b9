/**
 * Every `meta.reason` instance settings and platform setup answer with. Clients branch on
 * these: a reason is never renamed (docs/conventions.md, "Stable reasons").
 */
export const REASONS = {
  invalid_origin: 'invalid_origin',
  setup_token_invalid: 'setup_token_invalid',
  invalid_domain: 'invalid_domain',
  public_url_host: 'public_url_host',
  domain_in_use: 'domain_in_use',
  low_contrast: 'low_contrast',
  reserved_claim: 'reserved_claim',
  unknown_shortcode: 'unknown_shortcode',
  unsupported_locale: 'unsupported_locale',
  no_first_factor: 'no_first_factor',
  // A redirect_url that is none of the instance's allowed origins or redirect URLs (social and SSO flows, email links, the handshake).
  redirect_url_not_allowed: 'redirect_url_not_allowed',
  // A Clerk setting Latchkey has no counterpart for, set to anything but what Latchkey does (../api/bapi/clerk/instance-settings.ts).
  unsupported: 'unsupported',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    instances: typeof REASONS;
  }
}
