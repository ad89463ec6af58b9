import type { Context, MiddlewareHandler } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import { AppError } from '../../http/errors';
import { isId } from '../../db/ids';
import { instanceContext, type InstanceContext } from '../../instances/instances';
import { servedFapiUrl } from '../../instances/custom-domain';
import { clientCookieSpec } from '../../sessions/clients';
import { originOf, requestOrigin, SAFE_METHODS } from '../../http/origin';
import { completeAnswer, setAnswerHeader } from '../../http/answer-headers';

/**
 * Browser origins on the FAPI: CSRF refusal of cookie-authenticated writes and CORS.
 *
 * An origin is allowed when it is the fapi_url's own origin or one of the instance's
 * `allowed_origins` (compared as `scheme://host[:port]`, after URL normalisation).
 *
 * CSRF (one guard for the whole surface, run after authentication): a state change
 * (any method but GET/HEAD/OPTIONS) in web mode (no Authorization header) on a route that
 * resolves the client must name an allowed origin in `Origin` (or, without it, in
 * `Referer`) when it carries the `__client` cookie — a missing or foreign origin is 403
 * ORIGIN_NOT_ALLOWED. A cookieless web write is checked only when it names an origin
 * (a browser always does on a cross-origin POST), so a foreign page cannot sign a visitor
 * in either. Native requests (bearer) carry no ambient credential and are not checked.
 */
const ALLOWED_HEADERS = 'authorization, content-type, x-publishable-key, idempotency-key';
const EXPOSED_HEADERS = 'authorization, retry-after, x-request-id';

/** `servedUrl`: the fapi_url the request came in by, whose origin is the instance's own (custom-domain.ts). */
export function allowedOrigins(instance: InstanceContext, servedUrl: string): Set<string> {
  const out = new Set<string>();
  const own = originOf(servedUrl);
  if (own) out.add(own);
  for (const o of instance.settings.allowed_origins) {
    const n = originOf(o);
    if (n) out.add(n);
  }
  return out;
}

/** The origin a request names: `Origin`, else the origin of `Referer`; null when neither is usable. */

/** CSRF check of one request on a route that resolves the client (see above). */
export function checkOrigin(c: Context, instance: InstanceContext, mode: 'web' | 'native', servedUrl: string) {
  if (SAFE_METHODS.has(c.req.method) || mode === 'native') return;
  const cookieAuthenticated = getCookie(c, clientCookieSpec(instance).name) !== undefined;
  const named = c.req.header('origin') !== undefined || c.req.header('referer') !== undefined;
  if (!cookieAuthenticated && !named) return;
  const origin = requestOrigin(c);
  if (origin && allowedOrigins(instance, servedUrl).has(origin)) return;
  throw new AppError('ORIGIN_NOT_ALLOWED', {
    message: origin
      ? `Requests from ${origin} are not allowed; add it to the instance's allowed_origins.`
      : 'A cookie-authenticated request must send an Origin (or Referer) header.',
    meta: { origin },
  });
}

/**
 * CORS for the FAPI: an allowed origin is echoed with credentials (so browsers send the
 * cookie); preflights (OPTIONS) are answered here with 204. A foreign origin gets no CORS
 * headers, so the browser withholds the answer.
 */
export function fapiCors(deps: Deps): MiddlewareHandler {
  return async (c, next) => {
    const origin = originOf(c.req.header('origin'));
    const instanceId = c.req.param('instanceId');
    let allowed = false;
    if (origin && instanceId && isId('ins', instanceId)) {
      const instance = await instanceContext(deps, instanceId).catch(() => null);
      allowed = instance !== null && allowedOrigins(instance, servedFapiUrl(c.env, deps.config, instance)).has(origin);
    }
    if (c.req.method === 'OPTIONS') {
      const headers: Record<string, string> = { vary: 'Origin' };
      if (allowed) {
        Object.assign(headers, {
          'access-control-allow-origin': origin!,
          'access-control-allow-credentials': 'true',
          'access-control-allow-methods': 'GET, POST, PATCH, DELETE',
          'access-control-allow-headers': ALLOWED_HEADERS,
          'access-control-max-age': '600',
        });
      }
      return c.body(null, 204, headers);
    }
    // Set on the answer before it is rendered (answer-headers.ts); an answer made elsewhere (the surface's own 404) gets them after.
    setAnswerHeader(c, 'vary', 'Origin', { append: true });
    if (allowed) {
      setAnswerHeader(c, 'access-control-allow-origin', origin!);
      setAnswerHeader(c, 'access-control-allow-credentials', 'true');
      setAnswerHeader(c, 'access-control-expose-headers', EXPOSED_HEADERS);
    }
    await next();
    completeAnswer(c, c.res);
  };
}
