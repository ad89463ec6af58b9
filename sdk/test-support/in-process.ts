import type { TestHarness } from '../../server/testing/harness';

/**
 * A `fetch` that sends the SDK's requests to the in-process API (no socket): the URL's
 * path and query, method, headers and body go through unchanged.
 */
export function inProcessFetch(h: TestHarness, seen?: Request[], jar?: Map<string, string>): typeof fetch {
  return async (input, init) => {
    const req = new Request(input instanceof Request ? input : String(input), init);
    seen?.push(req.clone());
    const url = new URL(req.url);
    const body = req.method === 'GET' || req.method === 'HEAD' ? undefined : await req.text();
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    // With a jar, cookies are kept as a browser would (a web-mode client's `__client`).
    if (jar?.size) headers.cookie = [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    if (jar && req.method !== 'GET') headers.origin ??= 'http://localhost:3000';
    const res = await h.request(req.method, url.pathname + url.search, { headers, raw: body || undefined });
    for (const c of res.headers.getSetCookie()) {
      const [pair, ...attrs] = c.split(';');
      const [name, value] = [pair!.slice(0, pair!.indexOf('=')).trim(), pair!.slice(pair!.indexOf('=') + 1)];
      if (!jar) continue;
      if (attrs.some((a) => /max-age=0\b/i.test(a.trim())) || value === '') jar.delete(name);
      else jar.set(name, value);
    }
    return res;
  };
}
