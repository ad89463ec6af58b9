import type { z } from 'zod';
import type { RouteEntry } from '../../../http/router';
import type { MountableEndpoint } from '../../../http/endpoint';
import { CLERK_QUERY_PARAMS, CLERK_SESSION_PARAM, DEV_BROWSER_PARAM, type ClerkFapiRequest } from './mode';

/**
 * A clerk-js request as Latchkey's FAPI routes take it:
 * - `_method=PATCH|PUT|DELETE` on a POST is that method (clerk-js sends only GET and POST);
 * - Clerk's paths that Latchkey names otherwise are renamed (ALIASES);
 * - Clerk's own query parameters go to the request's Clerk context (mode.ts); the session a
 *   request acts for (`_clerk_session_id`) is the route's `session_id`, where it takes one;
 * - a list's page (`limit`, `offset`, `paginated`) goes to the context: the dialect walks
 *   Latchkey's cursor pages (dialect.ts); other query parameters the route does not take are
 *   left out;
 * - body fields the route does not take (clerk-js adds `locale`, `timezone`, `intent`,
 *   `tab_state`, captcha fields…) are left out: Latchkey's strict schemas would refuse them;
 *   so are empty optional fields of a form that is not an update. The form becomes JSON, its
 *   `true`/`false` and numbers typed as the route's schema takes them;
 * - the dev-browser token (`__clerk_db_jwt`) is the client's token: it stands in for the
 *   `__client` cookie a browser on another site cannot send (handshake.ts).
 */

type AnyRoute = RouteEntry<unknown, unknown>;

interface Alias {
  method: string;
  /** Clerk's path under the fapi_url; `:name` segments are kept. */
  path: string;
  to: { method: string; path?: string; body?: Record<string, string> };
}

const ALIASES: Alias[] = [
  // Clerk never signs a user up from a sign-in: a provider account without a user leaves the
  // sign-in `transferable`, and clerk-js's handleRedirectCallback transfers it to a sign-up.
  { method: 'POST', path: '/v1/client/sign_ins', to: { method: 'POST', body: { new_user: 'transfer' } } },
  // clerk-js "touches" the environment at start; it reads the answer as GET's.
  { method: 'PATCH', path: '/v1/environment', to: { method: 'GET' } },
  // Organization domains: Clerk names the email-code verification "affiliation" and changes the
  // enrollment mode with a POST of its own.
  {
    method: 'POST',
    path: '/v1/organizations/:id/domains/:domain_id/prepare_affiliation_verification',
    to: { method: 'POST', path: '/v1/organizations/:id/domains/:domain_id/prepare_verification', body: { strategy: 'email_code' } },
  },
  {
    method: 'POST',
    path: '/v1/organizations/:id/domains/:domain_id/attempt_affiliation_verification',
    to: { method: 'POST', path: '/v1/organizations/:id/domains/:domain_id/attempt_verification', body: { strategy: 'email_code' } },
  },
  // The account's sessions on every device (the profile's "Active devices").
  { method: 'GET', path: '/v1/me/sessions/active', to: { method: 'GET', path: '/v1/me/sessions' } },
  { method: 'POST', path: '/v1/organizations/:id/domains/:domain_id/update_enrollment_mode', to: { method: 'PATCH', path: '/v1/organizations/:id/domains/:domain_id' } },
  // `organization.setLogo` uploads with a PUT; Latchkey's uploads are POSTs (as `/v1/me/profile_image`).
  { method: 'PUT', path: '/v1/organizations/:id/logo', to: { method: 'POST' } },
  // `user.createPasskey()`: Clerk creates an unverified passkey carrying the creation options,
  // then verifies it with the browser's credential. Latchkey's registration is the session's
  // (one at a time), so the id in the second path names nothing the route needs.
  { method: 'POST', path: '/v1/me/passkeys', to: { method: 'POST', path: '/v1/me/passkeys/prepare_registration' } },
  { method: 'POST', path: '/v1/me/passkeys/:id/attempt_verification', to: { method: 'POST', path: '/v1/me/passkeys' } },
];

const FORM = 'application/x-www-form-urlencoded';
/** Clerk's page of a list (clerk-js sends `limit` and `offset` on every list, `paginated` on some). */
const LIST_PARAMS = ['limit', 'offset', 'paginated'] as const;
/** Clerk's page size when a list sends none, and the largest it is given. */
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 500;
const MAX_OFFSET = 10_000;

const pattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '([^/]+)')}/?$`);

function routeOf(routes: AnyRoute[], method: string, path: string): AnyRoute | undefined {
  return routes.find((r) => r.method === method && pattern(r.path).test(path));
}

/** The fields of a plain-object schema (of each option of a union), or null when it is neither. */
function shapeOf(schema: z.ZodType | undefined): Record<string, z.ZodType> | null {
  const s = schema as unknown as { shape?: Record<string, z.ZodType>; options?: z.ZodType[] } | undefined;
  if (s?.shape) return s.shape;
  if (!Array.isArray(s?.options)) return null;
  const shapes = s.options.map(shapeOf);
  return shapes.every(Boolean) ? Object.assign({}, ...shapes.reverse()) : null;
}

const endpointOf = (route: AnyRoute | undefined) => route?.endpoint as MountableEndpoint<unknown> | undefined;

/** The body fields a route takes (none when it has no body), or null when its schema is not a plain object (then the body is left as it is). */
function bodyShape(route: AnyRoute | undefined): Record<string, z.ZodType> | null {
  if (!route) return null;
  const body = endpointOf(route)?.body as z.ZodType | undefined;
  return body ? shapeOf(body) : {};
}

/** A form value as the field's schema takes it: `true`/`false` and numbers typed when the text is refused. */
function typed(field: z.ZodType | undefined, value: string): unknown {
  if (!field || field.safeParse(value).success) return value;
  for (const v of [value === 'true' ? true : value === 'false' ? false : undefined, value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined]) {
    if (v !== undefined && field.safeParse(v).success) return v;
  }
  return value;
}

const emptyIsNone = (field: z.ZodType | undefined) => field?.safeParse('').data === null;

/** Clerk's path (under the fapi_url) renamed by ALIASES, with the body fields the alias adds. */
function aliased(method: string, path: string): { method: string; path: string; body?: Record<string, string> } {
  for (const a of ALIASES) {
    const m = a.method === method ? pattern(a.path).exec(path) : null;
    if (!m) continue;
    const values = m.slice(1);
    const names = [...a.path.matchAll(/:([A-Za-z_]+)/g)].map((x) => x[1]!);
    const to = (a.to.path ?? path).replace(/:([A-Za-z_]+)/g, (_, n: string) => values[names.indexOf(n)] ?? '');
    return { method: a.to.method, path: to, body: a.to.body };
  }
  return { method, path };
}

function clerkPage(q: URLSearchParams): ClerkFapiRequest['list'] {
  const int = (v: string | null, fallback: number, max: number) => {
    const n = v === null ? fallback : Number(v);
    return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
  };
  return { limit: Math.max(1, int(q.get('limit'), DEFAULT_LIMIT, MAX_LIMIT)), offset: int(q.get('offset'), 0, MAX_OFFSET) };
}

export async function toLatchkeyRequest(req: Request, routes: AnyRoute[], opts: { devBrowser: boolean }): Promise<{ request: Request; ctx: ClerkFapiRequest }> {
  const url = new URL(req.url);
  const q = url.searchParams;
  const override = req.method === 'POST' ? q.get('_method')?.toUpperCase() : undefined;
  let method = override && ['PATCH', 'PUT', 'DELETE'].includes(override) ? override : req.method;
  // A client credential in a URL: Clerk's development contract, so test instances only (handshake.ts).
  const ctx: ClerkFapiRequest = { devBrowser: opts.devBrowser ? q.get(DEV_BROWSER_PARAM) : null, list: null };
  const sessionId = q.get(CLERK_SESSION_PARAM);
  for (const p of CLERK_QUERY_PARAMS) q.delete(p);

  // clerk-js writes a collection's path with a trailing slash (`/v1/me/email_addresses/`).
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  const prefix = /^\/fapi\/[^/]+/.exec(url.pathname)?.[0] ?? '';
  const alias = aliased(method, url.pathname.slice(prefix.length));
  method = alias.method;
  url.pathname = prefix + alias.path;
  const route = routeOf(routes, method, url.pathname);

  const query = shapeOf(endpointOf(route)?.query as z.ZodType | undefined);
  if (route && method === 'GET' && LIST_PARAMS.some((p) => q.has(p)) && query?.starting_after) {
    ctx.list = clerkPage(q);
    q.set('limit', String(MAX_LIMIT));
  } else if (route && method === 'GET' && LIST_PARAMS.some((p) => q.has(p))) {
    // A list answered whole (the user's own memberships, invitations…): Clerk's page is cut from it.
    ctx.list = clerkPage(q);
  }
  if (query) {
    for (const k of [...q.keys()]) if (!(k in query) || (ctx.list && k !== 'limit' && LIST_PARAMS.includes(k as never))) q.delete(k);
    if (ctx.list && !query.starting_after) q.delete('limit');
    // The session this request acts for: one of the client's (the route refuses another client's as not found).
    if (sessionId && 'session_id' in query) q.set('session_id', sessionId);
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
    const fields = bodyShape(route);
    if ((type.startsWith(FORM) || (alias.body && raw.byteLength === 0)) && fields) {
      const form = new URLSearchParams(new TextDecoder().decode(raw));
      const json: Record<string, unknown> = {};
      // Clerk's forms send an untouched optional field as empty ("username="): not given. An
      // update (PATCH) keeps it, where empty clears the field, and so does a field that reads
      // empty as none (`active_organization_id=`: the personal account).
      for (const [k, v] of form.entries()) if (k in fields && (v !== '' || method === 'PATCH' || emptyIsNone(fields[k]))) json[k] = typed(fields[k], v);
      Object.assign(json, alias.body);
      body = JSON.stringify(json);
      headers.set('content-type', 'application/json');
      headers.delete('content-length');
    }
  }
  if (method === 'GET') headers.delete('content-type');
  return { request: new Request(url, { method, headers, body: method === 'GET' ? undefined : body }), ctx };
}
