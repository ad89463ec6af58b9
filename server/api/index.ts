import type { Runtime } from '../runtime';
import { createBapi } from './bapi';
import { createDashboard } from './dashboard';
import { createFapi } from './fapi';
import { createOps } from './ops';

/** FAPI API paths; the rest of `/fapi/<instance_id>/…` are hosted pages (Next.js). */
const FAPI_API_RE = /^\/fapi\/[^/]+\/(v1|\.well-known)(\/|$)/;

/** Paths served by the API routers rather than Next.js. */
export function isApiPath(pathname: string): boolean {
  return (
    pathname === '/v1' ||
    pathname.startsWith('/v1/') ||
    FAPI_API_RE.test(pathname) ||
    pathname === '/healthz' ||
    pathname === '/readyz' ||
    pathname === '/metrics' ||
    pathname.startsWith('/internal/')
  );
}

export type FetchHandler = (req: Request, env?: unknown) => Response | Promise<Response>;

/** Every API surface behind one fetch handler, dispatched by path prefix. */
export function createApiHandler(runtime: Runtime): FetchHandler {
  const bapi = createBapi(runtime.deps);
  const fapi = createFapi(runtime.deps);
  const dashboard = createDashboard(runtime.deps);
  const ops = createOps(runtime.deps, runtime.database, runtime.lock);
  return (req, env) => {
    const { pathname } = new URL(req.url);
    if (pathname === '/v1/dashboard' || pathname.startsWith('/v1/dashboard/')) return dashboard.fetch(req, env);
    if (pathname === '/v1' || pathname.startsWith('/v1/')) return bapi.fetch(req, env);
    if (pathname.startsWith('/fapi/')) return fapi.fetch(req, env);
    return ops.fetch(req, env);
  };
}
