import type { Runtime } from '../runtime';
import { createBapi } from './bapi';
import { createDashboard } from './dashboard';
import { createFapi } from './fapi';
import { createOps } from './ops';
import { instanceIdForHost, requestHostname, withCustomDomain } from '../instances/custom-domain';
import { createScim } from './scim';
import { createOidc } from './oidc';
import { createLti } from './lti';
import { createSso } from './sso';
import { pathOf } from '../http/url';
import { createPortal } from './portal';

export type FetchHandler = (req: Request, env?: unknown) => Response | Promise<Response>;

/** Where a surface's paths live: under PUBLIC_URL, or under each instance's fapi_url (`/fapi/<instance_id>`). */
export type SurfaceBase = 'public_url' | 'fapi_url';

export interface SurfaceEntry {
  name: string;
  base: SurfaceBase;
  /** Path prefixes under the base, each a whole path or a folder (`/v1` serves `/v1` and `/v1/…`). */
  prefixes: readonly string[];
  /** The surface's router; it is built with its protocol (server/http/protocol.ts). */
  create(runtime: Runtime): FetchHandler;
}

/** The fapi_url path of an instance, as the routers match it. */
export const FAPI_BASE = '/fapi/:instanceId';

/**
 * Every API surface, listed once. Path matching (`isApiPath`), dispatch, the Next.js
 * route handlers under app/ and proxy.ts's page matcher derive from this list (the last
 * two are checked against it by server/api/surfaces.test.ts). The most specific prefix
 * wins: `/v1/dashboard` is the dashboard API, the rest of `/v1` the backend API.
 * Adding a surface is one entry here and a router in server/api/<name>.
 */
export const SURFACES: readonly SurfaceEntry[] = [
  { name: 'dashboard', base: 'public_url', prefixes: ['/v1/dashboard'], create: (r) => createDashboard(r.deps).fetch },
  { name: 'bapi', base: 'public_url', prefixes: ['/v1'], create: (r) => createBapi(r.deps).fetch },
  // `/npm`: Clerk's browser bundles, at the paths Clerk's SDKs build from the fapi_url.
  { name: 'fapi', base: 'fapi_url', prefixes: ['/v1', '/npm'], create: (r) => createFapi(r.deps).fetch },
  // The admin portal's API (issue 49): the portal pages' same-origin calls, by the __portal cookie.
  { name: 'portal', base: 'fapi_url', prefixes: ['/v1/portal'], create: (r) => createPortal(r.deps).fetch },
  // The OpenID Provider owns /.well-known (discovery and the JWKS) besides /oauth2.
  { name: 'oidc', base: 'fapi_url', prefixes: ['/oauth2', '/.well-known'], create: (r) => createOidc(r.deps).fetch },
  // LTI 1.3 launches: cross-site form posts in, redirects and HTML pages out.
  { name: 'lti', base: 'fapi_url', prefixes: ['/lti'], create: (r) => createLti(r.deps).fetch },
  // Enterprise SSO: SAML SP metadata and ACS, OIDC callbacks (issue 21).
  { name: 'sso', base: 'fapi_url', prefixes: ['/sso'], create: (r) => createSso(r.deps).fetch },
  { name: 'scim', base: 'public_url', prefixes: ['/scim/v2'], create: (r) => createScim(r.deps).fetch },
  {
    name: 'ops',
    base: 'public_url',
    prefixes: ['/healthz', '/readyz', '/metrics', '/internal/cli'],
    create: (r) => createOps(r.deps, r.database, r.lock).fetch,
  },
];

const FAPI_PATH_RE = /^\/fapi\/[^/]+(\/.*)?$/;

/** The part of a path its surface's prefixes are matched against, and which base it is under. */
function locate(pathname: string): { base: SurfaceBase; rest: string } {
  const fapi = FAPI_PATH_RE.exec(pathname);
  return fapi ? { base: 'fapi_url', rest: fapi[1] ?? '' } : { base: 'public_url', rest: pathname };
}

const underPrefix = (rest: string, prefix: string) => rest === prefix || rest.startsWith(`${prefix}/`);

/** The surface serving a path, or null for console and hosted pages (Next.js). */
export function surfaceOf(pathname: string): SurfaceEntry | null {
  const { base, rest } = locate(pathname);
  let best: { entry: SurfaceEntry; length: number } | null = null;
  for (const entry of SURFACES) {
    if (entry.base !== base) continue;
    for (const prefix of entry.prefixes) {
      if (underPrefix(rest, prefix) && (!best || prefix.length > best.length)) best = { entry, length: prefix.length };
    }
  }
  return best?.entry ?? null;
}

/** Paths served by the API routers rather than Next.js. */
export const isApiPath = (pathname: string) => surfaceOf(pathname) !== null;

/**
 * The path a request to an instance's custom domain is served as: the host root is the
 * instance's fapi_url, so `/v1/client` there is `/fapi/<instance_id>/v1/client`. Only
 * surfaces whose base is `fapi_url` (and hosted pages) answer under it; PUBLIC_URL's
 * surfaces (BAPI, dashboard, ops) and the console are not reachable on a custom domain.
 */
const customDomainPath = (instanceId: string, pathname: string) => `/fapi/${instanceId}${pathname === '/' ? '' : pathname}`;

/**
 * Where `npm start` sends a request: to the API routers, or to Next.js — the console and
 * hosted pages, or on an instance's custom domain only that instance's hosted pages
 * (proxy.ts rewrites the host root to `/fapi/<instance_id>`).
 */
export type Destination = { to: 'api' } | { to: 'pages'; customDomainInstance: string | null };

export async function destinationOf(
  deps: Pick<Runtime['deps'], 'db' | 'clock' | 'caches' | 'config'>,
  header: (name: string) => string | null | undefined,
  pathname: string,
): Promise<Destination> {
  const instanceId = await instanceIdForHost(deps, requestHostname(header, deps.config.TRUST_PROXY));
  if (instanceId)
    return surfaceOf(customDomainPath(instanceId, pathname)) ? { to: 'api' } : { to: 'pages', customDomainInstance: instanceId };
  return isApiPath(pathname) ? { to: 'api' } : { to: 'pages', customDomainInstance: null };
}

/** Every API surface behind one fetch handler, dispatched by host (custom domains) and path prefix. */
export function createApiHandler(runtime: Runtime): FetchHandler {
  const handlers = new Map(SURFACES.map((s) => [s, s.create(runtime)]));
  const ops = handlers.get(SURFACES.find((s) => s.name === 'ops')!)!;
  const { deps } = runtime;
  const dispatch: FetchHandler = (req, env) => {
    const surface = surfaceOf(pathOf(req.url));
    // Nothing else reaches here from the servers; a stray path gets the ops surface's JSON 404.
    return (surface ? handlers.get(surface)! : ops)(req, env);
  };
  return async (req, env) => {
    const host = requestHostname((name) => req.headers.get(name), deps.config.TRUST_PROXY);
    const instanceId = await instanceIdForHost(deps, host);
    if (!instanceId) return dispatch(req, env);
    const url = new URL(req.url);
    url.pathname = customDomainPath(instanceId, url.pathname);
    // A path no fapi_url surface serves lands on a 404 whichever router answers it.
    return dispatch(new Request(url, req), withCustomDomain(env, host));
  };
}
