import { guardedRequest, type OutboundRequest } from './outbound';
import type { DnsResolver, TargetPolicy } from '../infra/ssrf';

/** What a library's pluggable fetch passes (openid-client's `customFetch`, oauth4webapi's CustomFetchOptions). */
interface FetchOptions {
  method?: string;
  headers?: Record<string, string> | Headers;
  body?: unknown;
}

export type GuardedFetch = (url: string, options?: FetchOptions) => Promise<Response>;

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (body instanceof Uint8Array) return Buffer.from(body).toString('utf8');
  throw new TypeError('Unsupported request body for an outbound request.');
}

/**
 * A `fetch` for libraries that take one (openid-client): every request goes through the
 * SSRF guard (guardedRequest: URL and resolved addresses checked, connection pinned, no
 * redirects followed, bounded time and size).
 */
export function guardedFetch(opts: {
  policy: TargetPolicy;
  resolve: DnsResolver;
  testTrustedCas?: OutboundRequest['testTrustedCas'];
  timeoutMs?: number;
  maxResponseBytes?: number;
}): GuardedFetch {
  return async (url, init = {}) => {
    const headers: Record<string, string> = {};
    if (init.headers instanceof Headers) init.headers.forEach((v, k) => (headers[k] = v));
    else Object.assign(headers, init.headers ?? {});
    const res = await guardedRequest({
      url,
      method: init.method ?? 'GET',
      headers,
      body: bodyText(init.body),
      timeoutMs: opts.timeoutMs ?? 10_000,
      maxResponseBytes: opts.maxResponseBytes ?? 1024 * 1024,
      policy: opts.policy,
      resolve: opts.resolve,
      testTrustedCas: opts.testTrustedCas,
    });
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) {
      if (v === undefined) continue;
      for (const one of Array.isArray(v) ? v : [v]) out.append(k, one);
    }
    // A body is not allowed with these statuses.
    const empty = res.status === 204 || res.status === 304 || (res.status >= 100 && res.status < 200);
    return new Response(empty ? null : res.body, { status: res.status, headers: out });
  };
}
