import type { Deps } from '../../deps';
import type { Method } from '../../http/endpoint';
import { buildSurface, type RouteEntry } from '../../http/router';
import * as sessions from '../../sessions/fapi-routes';
import { authenticateFapi, type FapiAuth, type FapiGuard } from './auth';

/** Every FAPI path lives under an instance's fapi_url: `{PUBLIC_URL}/fapi/<instance_id>`. */
export const FAPI_PREFIX = '/fapi/:instanceId';

const route = (method: Method, path: string, guard: FapiGuard, ep: RouteEntry<FapiGuard>['endpoint']): RouteEntry<FapiGuard> => ({
  method,
  path: `${FAPI_PREFIX}${path}`,
  guard,
  endpoint: ep,
});

/** Guards: the publishable key (required, or checked when sent), whether the client is resolved, limits, caching. */
const PK_CLIENT: FapiGuard = { key: 'required', client: true };
const CLIENT: FapiGuard = { key: 'optional', client: true };
const SIGN_IN: FapiGuard = { key: 'optional', client: true, limit: 'sign_in' };
const PUBLIC: FapiGuard = { key: 'optional', client: false };
const PUBLIC_CACHED: FapiGuard = { key: 'optional', client: false, cache: 'public, max-age=60' };

/**
 * The frontend API, one route a line: method, path under the fapi_url, guard, endpoint.
 * Browsers and native apps call it; it never answers 401 to GET /v1/client.
 */
export const fapiRoutes: RouteEntry<FapiGuard>[] = [
  route('GET',    '/v1/client',                       PK_CLIENT,     sessions.getClientEndpoint),
  route('DELETE', '/v1/client',                       CLIENT,        sessions.deleteClientEndpoint),
  route('POST',   '/v1/client/sign_ins',              SIGN_IN,       sessions.createSignInEndpoint),
  route('POST',   '/v1/client/sessions/:id/tokens',   CLIENT,        sessions.createSessionTokenEndpoint),
  route('POST',   '/v1/sessions/:id/refresh',         PUBLIC,        sessions.refreshSessionEndpoint),
  route('GET',    '/.well-known/jwks.json',           PUBLIC_CACHED, sessions.jwksEndpoint),
];

export function createFapi(deps: Deps) {
  return buildSurface<FapiGuard, FapiAuth>(deps, {
    name: 'fapi',
    routes: fapiRoutes,
    acceptsForm: true,
    authenticate: (c, r) => authenticateFapi(deps, c, r.guard),
    around: async ({ route: r, deps: d, run }) => {
      const out = await run(d);
      return r.guard.cache ? { ...out, headers: { 'cache-control': r.guard.cache } } : out;
    },
  });
}
