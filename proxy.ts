import { NextResponse, type NextRequest } from 'next/server';
import { LOCALE_HEADER, matchLocale } from './i18n/locales';

/** A `?locale=` parameter (hosted pages, console) picks the language for this request. */
export function proxy(request: NextRequest) {
  const locale = matchLocale(request.nextUrl.searchParams.get('locale'));
  const forwarded = new Headers(request.headers);
  forwarded.delete(LOCALE_HEADER);
  if (locale) forwarded.set(LOCALE_HEADER, locale);
  return NextResponse.next({ request: { headers: forwarded } });
}

export const config = {
  // Pages only: API prefixes never reach Next.js in `npm start`, and need no locale.
  matcher: ['/((?!_next/|v1/|fapi/[^/]+/v1/|fapi/[^/]+/\\.well-known/|fapi/[^/]+/oauth2/|healthz|readyz|metrics|internal/|favicon).*)'],
};
