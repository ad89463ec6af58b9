/** The URL `value` names when it is an absolute http(s) one; null otherwise (not a URL, another scheme). */
export function httpUrl(value: string): URL | null {
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : null;
  } catch {
    return null;
  }
}

/**
 * Whether `value` is an absolute http(s) URL. `bare`: also without credentials, query or
 * fragment, as a base URL that paths are appended to must be.
 */
export function isHttpUrl(value: string, opts: { bare?: boolean } = {}): boolean {
  const u = httpUrl(value);
  if (!u) return false;
  return !opts.bare || (!u.username && !u.password && !u.search && !u.hash);
}

/**
 * The path of a request's URL (`req.url`, absolute and already serialised by the URL parser):
 * what `new URL(url).pathname` answers, without parsing the whole URL again per request.
 */
export function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start < 0) return '/';
  for (let i = start; i < url.length; i++) {
    const ch = url.charCodeAt(i);
    if (ch === 63 /* ? */ || ch === 35 /* # */) return url.slice(start, i);
  }
  return url.slice(start);
}
