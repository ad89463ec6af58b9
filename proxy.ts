import { NextResponse, type NextRequest } from 'next/server';
import { LOCALE_HEADER, matchLocale } from './i18n/locales';
import { CUSTOM_DOMAIN_INSTANCE_HEADER } from './lib/fapi/hosted-base';
import { NONCE_HEADER, PAGE_SECURITY_HEADERS, newNonce, pageContentSecurityPolicy } from './server/http/security-headers';

const INSTANCE_ID_RE = /^ins_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * A `?locale=` parameter (hosted pages, console) picks the language for this request.
 * On an instance's custom domain (`npm start` names the instance in a header it strips
 * from every incoming request) the host root is that instance's fapi_url: `/sign-in` is
 * served as `/fapi/<instance_id>/sign-in`, and the console is not reachable (404).
 * Every page gets the security headers (server/http/security-headers.ts) and a CSP whose
 * script nonce is fresh per request: Next.js reads it from the request's CSP header and puts
 * it on its scripts; the root layout reads it from `x-nonce` for its own.
 */
export function proxy(request: NextRequest) {
  const locale = matchLocale(request.nextUrl.searchParams.get('locale'));
  const forwarded = new Headers(request.headers);
  forwarded.delete(LOCALE_HEADER);
  if (locale) forwarded.set(LOCALE_HEADER, locale);
  const nonce = newNonce();
  const csp = pageContentSecurityPolicy(nonce, { dev: process.env.NODE_ENV === 'development' });
  forwarded.set(NONCE_HEADER, nonce);
  forwarded.set('content-security-policy', csp);
  const domainInstance = request.headers.get(CUSTOM_DOMAIN_INSTANCE_HEADER);
  let response: NextResponse;
  if (domainInstance && INSTANCE_ID_RE.test(domainInstance)) {
    const url = request.nextUrl.clone();
    url.pathname = `/fapi/${domainInstance}${url.pathname === '/' ? '' : url.pathname}`;
    response = NextResponse.rewrite(url, { request: { headers: forwarded } });
  } else {
    forwarded.delete(CUSTOM_DOMAIN_INSTANCE_HEADER);
    response = NextResponse.next({ request: { headers: forwarded } });
  }
  for (const [name, value] of Object.entries(PAGE_SECURITY_HEADERS)) response.headers.set(name, value);
  response.headers.set('content-security-policy', csp);
  return response;
}

export const config = {
  // Pages only: API prefixes never reach Next.js in `npm start`, and need no locale.
  matcher: [
    '/((?!_next/|v1/|fapi/[^/]+/v1/|fapi/[^/]+/npm/|fapi/[^/]+/\\.well-known/|fapi/[^/]+/oauth2/|fapi/[^/]+/lti/|fapi/[^/]+/sso/|scim/v2|healthz|readyz|metrics|internal/|favicon|icon\\.svg).*)',
  ],
};
