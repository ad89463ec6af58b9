import { requestJson } from '../api-client';

export type FapiCall = <T>(
  path: string,
  init?: { method?: string; json?: unknown; query?: Record<string, string | undefined> },
) => Promise<T>;

/**
 * The FAPI from a hosted page: same origin as the page (`base` from hostedBase:
 * `/fapi/<instance_id>/v1/…`, or `/v1/…` on the instance's custom domain), the browser's
 * cookie, the publishable key in a header once known (GET /v1/client needs it).
 */
export function fapiCaller(base: string, publishableKey?: string): FapiCall {
  return async <T>(path: string, init: { method?: string; json?: unknown; query?: Record<string, string | undefined> } = {}) => {
    const search = new URLSearchParams();
    for (const [k, v] of Object.entries(init.query ?? {})) if (v !== undefined) search.set(k, v);
    const qs = search.toString();
    const method = init.method ?? (init.json !== undefined ? 'POST' : 'GET');
    const { body } = await requestJson<T>(`${base}${path}${qs ? `?${qs}` : ''}`, {
      method,
      json: init.json,
      headers: publishableKey ? { 'x-publishable-key': publishableKey } : undefined,
      cache: 'no-store',
    });
    return body;
  };
}
