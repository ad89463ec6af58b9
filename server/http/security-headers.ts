/**
 * The security headers of every response: the API surfaces' (set by the router's request
 * context, server/http/request-context.ts) and the console's and hosted pages' (proxy.ts,
 * with a fresh script nonce per page). Pure and dependency-free, since proxy.ts loads it too.
 *
 * - `X-Content-Type-Options: nosniff` everywhere.
 * - Framing: `frame-ancestors 'none'` and `X-Frame-Options: DENY` (clickjacking), except on
 *   the LTI surface, which a learning platform shows in an iframe by design.
 * - `Referrer-Policy: strict-origin-when-cross-origin`: another site gets at most our origin,
 *   so the tokens some of our URLs carry (invitation tokens, sign-in tickets) never leave. Not
 *   `no-referrer`: under it a browser posts a form with `Origin: null`, which the CSRF guard
 *   must refuse (the OAuth consent form). Responses that carry a token onwards in a redirect
 *   still set `no-referrer` themselves.
 * - A response that set one of these itself keeps its own (an image's sandboxing CSP).
 */
const SECURITY_HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'strict-origin-when-cross-origin',
} as const;

const NO_FRAMING = { 'x-frame-options': 'DENY' } as const;

/** Surfaces whose pages another site may frame: LTI launches run inside the platform's iframe. */
const FRAMEABLE_SURFACES: ReadonlySet<string> = new Set(['lti']);

/**
 * The API surfaces answer JSON, redirects and small HTML pages (consent, sign-out, errors) with
 * inline styles, same-origin forms and no script: nothing else may load.
 */
export function apiSecurityHeaders(surface: string): Record<string, string> {
  const base = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; base-uri 'none'";
  if (FRAMEABLE_SURFACES.has(surface)) return { ...SECURITY_HEADERS, 'content-security-policy': base };
  return { ...SECURITY_HEADERS, ...NO_FRAMING, 'content-security-policy': `${base}; frame-ancestors 'none'` };
}

/** Request header carrying a page's script nonce to the root layout (its inline theme script). */
export const NONCE_HEADER = 'x-nonce';

/**
 * The console's and hosted pages' policy. Scripts run only with this response's nonce, which
 * Next.js puts on its own inline and bundle scripts (every page renders per request) and those
 * load the rest ('strict-dynamic'); no `unsafe-eval` outside `next dev`, whose React needs it.
 * Styles allow 'unsafe-inline': React writes style attributes (branding colours), which a nonce
 * cannot cover. Images may come from any https origin (an instance's logo URL). No form-action:
 * Chromium applies it to a submitted form's redirects too, and a sign-in ends at another site.
 */
export function pageContentSecurityPolicy(nonce: string, opts: { dev: boolean }): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${opts.dev ? " 'unsafe-eval'" : ''}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** Every header of a page but its CSP (which needs the nonce). */
export const PAGE_SECURITY_HEADERS = { ...SECURITY_HEADERS, ...NO_FRAMING } as const;

/** A fresh nonce: 128 random bits, base64. */
export function newNonce(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return btoa(String.fromCharCode(...bytes));
}
