/**
 * Every `meta.reason` the OAuth application routes answer with. Clients branch on these: a
 * reason is never renamed (docs/conventions.md, "Stable reasons"). Errors of the provider itself
 * (/oauth2/…) are OAuth `error` codes (RFC 6749), not reasons.
 */
export const REASONS = {
  redirect_uri_not_allowed: 'redirect_uri_not_allowed',
  public_client: 'public_client',
} as const;

declare module '../http/errors' {
  interface ReasonsByDomain {
    oauth: typeof REASONS;
  }
}
