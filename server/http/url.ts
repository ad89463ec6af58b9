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
