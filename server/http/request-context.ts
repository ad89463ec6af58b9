import type { Context, MiddlewareHandler } from 'hono';
import type { Deps } from '../deps';
import { newId } from '../db/ids';
import type { Config } from '../config';
import type { RequestInfo } from './endpoint';
import { requestOrigin } from './origin';
import { cidrContains, normalizeIp, parseCidr, parseIp, type Cidr } from '../infra/ip';
import { apiSecurityHeaders } from './security-headers';
import { completeAnswer, setAnswerHeader } from './answer-headers';

export type SurfaceEnv = {
  Variables: {
    requestId: string;
    route: string;
    startedAt: number;
  };
};

const REQUEST_ID_RE = /^[A-Za-z0-9_.:-]{8,128}$/;

/**
 * Request id, the security headers, one structured log line and metrics per request. The
 * router's answers carry the request id and the security headers from the start (renderAnswer);
 * any other answer (an error, a 404) gets them here, where it has none of that name.
 */
export function requestContext(deps: Deps, surface: string): MiddlewareHandler<SurfaceEnv> {
  const security = apiSecurityHeaders(surface);
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const requestId = given && REQUEST_ID_RE.test(given) ? given : newId('req');
    c.set('requestId', requestId);
    c.set('route', 'unmatched');
    setAnswerHeader(c, 'x-request-id', requestId);
    await next();
    const res = c.res;
    completeAnswer(c, res, security);
    const seconds = (performance.now() - started) / 1000;
    const route = c.get('route');
    const status = res.status;
    deps.metrics.requests.inc({ surface, route, method: c.req.method, status: String(status) });
    deps.metrics.duration.observe({ surface, route, method: c.req.method }, seconds);
    deps.logger.info(
      { req_id: requestId, surface, method: c.req.method, route, status, duration_ms: Math.round(seconds * 1e5) / 100 },
      'request',
    );
  };
}

/** Your own proxies by default: loopback, private and link-local ranges (TRUSTED_PROXIES replaces them). */
const DEFAULT_TRUSTED_PROXIES: Cidr[] = [
  '127.0.0.0/8',
  '10.0.0.0/8',
  '172.16.0.0/12',
  '192.168.0.0/16',
  '169.254.0.0/16',
  '::1/128',
  'fc00::/7',
  'fe80::/10',
].map((c) => parseCidr(c)!);

type ProxyConfig = Pick<Config, 'TRUST_PROXY' | 'TRUSTED_PROXIES'>;

const socketAddress = (c: Context) =>
  (c.env as { incoming?: { socket?: { remoteAddress?: string } } } | undefined)?.incoming?.socket?.remoteAddress;

/**
 * The client's address, the one every per-IP control uses: the socket peer's, or under
 * TRUST_PROXY the rightmost X-Forwarded-For hop that is not one of your proxies
 * (TRUSTED_PROXIES), since every hop left of it may be written by the client. Null when
 * nothing is known (a host that hides the peer).
 */
export function clientIp(c: Context, config: ProxyConfig): string | null {
  // Several guards ask for it per request (the network ACL, rate limits, the actor): worked out once.
  const known = clientIps.get(c);
  if (known !== undefined) return known;
  const ip = clientIpOf(c, config);
  clientIps.set(c, ip);
  return ip;
}
const clientIps = new WeakMap<Context, string | null>();

function clientIpOf(c: Context, config: ProxyConfig): string | null {
  const peer = normalizeIp(socketAddress(c) ?? '');
  if (!config.TRUST_PROXY) return peer;
  const hops = (c.req.header('x-forwarded-for') ?? '')
    .split(',')
    .map((h) => h.trim())
    .filter(Boolean);
  const trusted = config.TRUSTED_PROXIES ?? DEFAULT_TRUSTED_PROXIES;
  let client: string | null = null;
  for (let i = hops.length - 1; i >= 0; i--) {
    const ip = parseIp(hops[i]!);
    // A hop that is no address was not written by a proxy of ours: the client stops here.
    if (!ip) break;
    client = normalizeIp(hops[i]!);
    if (!trusted.some((cidr) => cidrContains(cidr, ip))) break;
  }
  return client ?? peer;
}

export function requestInfo(c: Context<SurfaceEnv>, config: ProxyConfig): RequestInfo {
  return {
    requestId: c.get('requestId'),
    ip: clientIp(c, config),
    userAgent: c.req.header('user-agent') ?? null,
    acceptLanguage: c.req.header('accept-language') ?? null,
    origin: requestOrigin(c),
  };
}

/** The token of an `Authorization: Bearer <token>` header; null when there is none or it has another form. */
export function bearerToken(header: string | undefined): string | null {
  return header === undefined ? null : (/^Bearer\s+(\S+)$/i.exec(header)?.[1] ?? null);
}
