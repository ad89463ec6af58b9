import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../deps';
import { newId } from '../db/ids';
import type { RequestInfo } from './endpoint';

export type SurfaceEnv = {
  Variables: {
    requestId: string;
    route: string;
    startedAt: number;
  };
};

const REQUEST_ID_RE = /^[A-Za-z0-9_.:-]{8,128}$/;

/** Request id, one structured log line and metrics per request. */
export function requestContext(deps: Deps, surface: string): MiddlewareHandler<SurfaceEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const requestId = given && REQUEST_ID_RE.test(given) ? given : newId('req');
    c.set('requestId', requestId);
    c.set('route', 'unmatched');
    // Set before the handler runs: adding a header to a finished response makes Hono rebuild it.
    c.header('x-request-id', requestId);
    await next();
    const seconds = (performance.now() - started) / 1000;
    const route = c.get('route');
    const status = c.res.status;
    deps.metrics.requests.inc({ surface, route, method: c.req.method, status: String(status) });
    deps.metrics.duration.observe({ surface, route, method: c.req.method }, seconds);
    deps.logger.info(
      { req_id: requestId, surface, method: c.req.method, route, status, duration_ms: Math.round(seconds * 1e5) / 100 },
      'request',
    );
  };
}

export function clientIp(c: Context, trustProxy: boolean): string | null {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim();
    if (forwarded) return forwarded;
  }
  const incoming = (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming;
  return incoming?.socket?.remoteAddress ?? null;
}

export function requestInfo(c: Context<SurfaceEnv>, trustProxy: boolean): RequestInfo {
  return { requestId: c.get('requestId'), ip: clientIp(c, trustProxy), userAgent: c.req.header('user-agent') ?? null, acceptLanguage: c.req.header('accept-language') ?? null };
}

/** The token of an `Authorization: Bearer <token>` header; null when there is none or it has another form. */
export function bearerToken(header: string | undefined): string | null {
  return header === undefined ? null : (/^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null);
}
