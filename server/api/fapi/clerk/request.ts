import type { z } from 'zod';
import type { RouteEntry } from '../../../http/router';
import type { MountableEndpoint } from '../../../http/endpoint';
import { CLERK_QUERY_PARAMS, DEV_BROWSER_PARAM, type ClerkFapiRequest } from './mode';

/**
 * A clerk-js request as Latchkey's FAPI routes take it:
 * - `_method=PATCH|PUT|DELETE` on a POST is that method (clerk-js sends only GET and POST);
 * - Clerk's paths that Latchkey names otherwise are renamed (ALIASES);
 * - Clerk's own query parameters go to the request's Clerk context (mode.ts);
 * - body fields the route does not take (clerk-js adds `locale`, `timezone`, `intent`,
 *   `tab_state`, captcha fields…) are left out: Latchkey's strict schemas would refuse them;
 *   so are empty optional fields of a form that is not an update;
 * - the dev-browser token (`__clerk_db_jwt`) is the client's token: it stands in for the
 *   `__client` cookie a browser on another site cannot send (handshake.ts).
 */

type AnyRoute = RouteEntry<unknown, unknown>;

/** `METHOD path` (under the fapi_url) of Clerk → Latchkey's. */
const ALIASES: Record<string, { method: string; path?: string }> = {
  // clerk-js "touches" the environment at start; it reads the answer as GET's.
  'PATCH /v1/environment': { method: 'GET' },
};

const FORM = 'application/x-www-form-urlencoded';

function routeOf(routes: AnyRoute[], method: string, path: string): AnyRoute | undefined {
  return routes.find((r) => r.method === method && new RegExp(`^${r.path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`).test(path));
}

/** The body fields a route takes, or null when its schema is not a plain object (then the body is left as it is). */
function bodyFields(route: AnyRoute | undefined): Set<string> | null {
  const body = (route?.endpoint as MountableEndpoint<unknown> | undefined)?.body as z.ZodType | undefined;
  if (!route) return null;
  if (!body) return new Set();
  const shape = (body as unknown as { shape?: Record<string, unknown> }).shape;
  return shape ? new Set(Object.keys(shape)) : null;
}

export async function toLatchkeyRequest(req: Request, routes: AnyRoute[], opts: { devBrowser: boolean }): Promise<{ request: Request; ctx: ClerkFapiRequest }> {
  const url = new URL(req.url);
  const q = url.searchParams;
  const override = req.method === 'POST' ? q.get('_method')?.toUpperCase() : undefined;
  let method = override && ['PATCH', 'PUT', 'DELETE'].includes(override) ? override : req.method;
  // A client credential in a URL: Clerk's development contract, so test instances only (handshake.ts).
  const ctx: ClerkFapiRequest = { devBrowser: opts.devBrowser ? q.get(DEV_BROWSER_PARAM) : null };
  for (const p of CLERK_QUERY_PARAMS) q.delete(p);

  // clerk-js writes a collection's path with a trailing slash (`/v1/me/email_addresses/`).
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  const prefix = /^\/fapi\/[^/]+/.exec(url.pathname)?.[0] ?? '';
  const alias = ALIASES[`${method} ${url.pathname.slice(prefix.length)}`];
  if (alias) {
    method = alias.method;
    if (alias.path) url.pathname = prefix + alias.path;
  }

  const headers = new Headers(req.headers);
  // The FAPI's own cookie wins: a dev-browser token the app kept may be one a sign-in has since rotated.
  const cookies = headers.get('cookie') ?? '';
  if (ctx.devBrowser && !/(?:^|;\s*)__client=/.test(cookies)) headers.set('cookie', cookies ? `${cookies}; __client=${ctx.devBrowser}` : `__client=${ctx.devBrowser}`);

  let body: string | ArrayBuffer | undefined;
  if (method !== 'GET' && method !== 'HEAD' && req.method !== 'GET') {
    const raw = await req.arrayBuffer();
    body = raw;
    const type = headers.get('content-type') ?? '';
    const fields = bodyFields(routeOf(routes, method, url.pathname));
    if (type.startsWith(FORM) && fields) {
      const form = new URLSearchParams(new TextDecoder().decode(raw));
      // Clerk's forms send an untouched optional field as empty ("username="): not given. An
      // update (PATCH) keeps it, where empty clears the field.
      for (const [k, v] of [...form.entries()]) if (!fields.has(k) || (v === '' && method !== 'PATCH')) form.delete(k);
      body = form.toString();
      headers.delete('content-length');
    }
  }
  if (method === 'GET') headers.delete('content-type');
  return { request: new Request(url, { method, headers, body: method === 'GET' ? undefined : body }), ctx };
}
