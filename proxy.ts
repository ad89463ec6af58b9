import { NextResponse, type NextRequest } from 'next/server';
import { LOCALE_HEADER, matchLocale } from './i18n/locales';
import { CUSTOM_DOMAIN_INSTANCE_HEADER } from './lib/fapi/hosted-base';

const INSTANCE_ID_RE = /^ins_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * A `?locale=` parameter (hosted pages, console) picks the language for this request.
 * On an instance's custom domain (`npm start` names the instance in a header it strips
 * from every incoming request) the host root is that instance's fapi_url: `/sign-in` is
 * served as `/fapi/<instance_id>/sign-in`, and the console is not reachable (404).
 */
export function proxy(request: NextRequest) {
  const locale = matchLocale(request.nextUrl.searchParams.get('locale'));
  const forwarded = new Headers(request.headers);
  forwarded.delete(LOCALE_HEADER);
  if (locale) forwarded.set(LOCALE_HEADER, locale);
  const domainInstance = request.headers.get(CUSTOM_DOMAIN_INSTANCE_HEADER);
  if (domainInstance && INSTANCE_ID_RE.test(domainInstance)) {
    const url = request.nextUrl.clone();
    url.pathname = `/fapi/${domainInstance}${url.pathname === '/' ? '' : url.pathname}`;
    return NextResponse.rewrite(url, { request: { headers: forwarded } });
  }
  forwarded.delete(CUSTOM_DOMAIN_INSTANCE_HEADER);
  return NextResponse.next({ request: { headers: forwarded } });
}

export const config = {
  // Pages only: API prefixes never reach Next.js in `npm start`, and need no locale.
  matcher: ['/((?!_next/|v1/|fapi/[^/]+/v1/|fapi/[^/]+/\\.well-known/|fapi/[^/]+/oauth2/|fapi/[^/]+/lti/|fapi/[^/]+/sso/|scim/v2|healthz|readyz|metrics|internal/|favicon|icon\\.svg).*)'],
};
