import { z } from 'zod';
import type { Deps } from '../../../deps';
import type { Renamed, Translated } from '../../../http/dialect';
import type { Method } from '../../../http/endpoint';
import { instanceContext } from '../../../instances/instances';
import type { MeAuth } from '../authenticate';
import { CLERK_QUERY_PARAMS, CLERK_SESSION_PARAM, DEV_BROWSER_PARAM, type ClerkFapiState } from './mode';

/**
 * A clerk-js request as Latchkey's FAPI routes take it (the table's line has already renamed it
 * to its route):
 * - `_method=PATCH|PUT|DELETE` on a POST is that method (clerk-js sends only GET and POST), and
 *   a trailing `/` of a path is dropped (`/v1/me/email_addresses/`): `meantRequest`;
 * - Clerk's own query parameters are taken off (mode.ts); the session a request acts for
 *   (`_clerk_session_id`) is the route's `session_id`, where it takes one;
 * - a list's page (`limit`, `offset`, `paginated`) is the dialect's page: the router walks the
 *   route's cursor pages (http/dialect.ts); other query parameters the route does not take are
 *   left out;
 * - body fields the route does not take (clerk-js adds `locale`, `timezone`, `intent`,
 *   `tab_state`, captcha fields…) are left out: Latchkey's strict schemas would refuse them;
 *   so are empty optional fields of a form that is not an update. The form becomes JSON, its
 *   `true`/`false` and numbers typed as the route's schema takes them, the line's fixed fields
 *   added;
 * - the dev-browser token (`__clerk_db_jwt`) is the client's token: it stands in for the
 *   `__client` cookie a browser on another site cannot send (handshake.ts).
 */

const FORM = 'application/x-www-form-urlencoded';
/** Clerk's page of a list (clerk-js sends `limit` and `offset` on every list, `paginated` on some). */
const LIST_PARAMS: readonly string[] = ['limit', 'offset', 'paginated'];
/** Clerk's page size when a list sends none, and the largest it is given. */
const DEFAULT_LIMIT = 10;
const MAX_LIMIT = 500;
const MAX_OFFSET = 10_000;
/** How many items a Clerk list reads through Latchkey's cursor pages: `total_count` is exact up to this many. */
const MAX_WALK = 5_000;
const OVERRIDES: readonly string[] = ['PATCH', 'PUT', 'DELETE'];

/** The method and URL clerk-js means: `_method` on a POST, no trailing slash. */
export function meantRequest(req: Request): { method: string; url: URL } {
  const url = new URL(req.url);
  const override = req.method === 'POST' ? url.searchParams.get('_method')?.toUpperCase() : undefined;
  if (url.pathname.length > 1 && url.pathname.endsWith('/')) url.pathname = url.pathname.slice(0, -1);
  return { method: override && OVERRIDES.includes(override) ? override : req.method, url };
}

/** The fields of a plain-object schema (of each option of a union), or null when it is neither. */
function shapeOf(schema: unknown): Record<string, z.ZodType> | null {
  if (schema instanceof z.ZodObject) return schema.shape;
  if (!(schema instanceof z.ZodUnion)) return null;
  const shapes = schema.options.map(shapeOf);
  return shapes.every(Boolean) ? Object.assign({}, ...shapes.reverse()) : null;
}

/** The body fields a route takes (none when it has no body), or null when its schema is not a plain object (then the body is left as it is). */
function bodyShape(route: Renamed<ClerkFapiState, MeAuth>['route']): Record<string, z.ZodType> | null {
  if (!route) return null;
  return route.endpoint.body ? shapeOf(route.endpoint.body) : {};
}

/** A form value as the field's schema takes it: `true`/`false` and numbers typed when the text is refused. */
function typed(field: z.ZodType | undefined, value: string): unknown {
  if (!field || field.safeParse(value).success) return value;
  for (const v of [
    value === 'true' ? true : value === 'false' ? false : undefined,
    value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : undefined,
  ]) {
    if (v !== undefined && field.safeParse(v).success) return v;
  }
  return value;
}

const emptyIsNone = (field: z.ZodType | undefined) => field?.safeParse('').data === null;

function clerkPage(q: URLSearchParams) {
  const int = (v: string | null, fallback: number, max: number) => {
    const n = v === null ? fallback : Number(v);
    return Number.isInteger(n) && n >= 0 ? Math.min(n, max) : fallback;
  };
  return {
    limit: Math.max(1, int(q.get('limit'), DEFAULT_LIMIT, MAX_LIMIT)),
    offset: int(q.get('offset'), 0, MAX_OFFSET),
    paginated: true,
    max: MAX_WALK,
  };
}

/** The form as the route's JSON body: the fields it takes, typed, and the line's fixed fields. */
function formBody(
  raw: Uint8Array,
  fields: Record<string, z.ZodType>,
  method: Method,
  fixed: Readonly<Record<string, string>> | undefined,
): string {
  const form = new URLSearchParams(new TextDecoder().decode(raw));
  const json: Record<string, unknown> = {};
  // Clerk's forms send an untouched optional field as empty ("username="): not given. An
  // update (PATCH) keeps it, where empty clears the field, and so does a field that reads
  // empty as none (`active_organization_id=`: the personal account).
  for (const [k, v] of form.entries())
    if (k in fields && (v !== '' || method === 'PATCH' || emptyIsNone(fields[k]))) json[k] = typed(fields[k], v);
  return JSON.stringify({ ...json, ...fixed });
}

export async function translateClerkRequest(
  deps: Deps,
  req: Request,
  to: Renamed<ClerkFapiState, MeAuth>,
): Promise<Translated<ClerkFapiState>> {
  const { url, method, route, line } = to;
  const instance = await instanceContext(deps, /^\/fapi\/([^/]+)/.exec(url.pathname)?.[1] ?? '').catch(() => null);
  const q = url.searchParams;
  // A client credential in a URL: Clerk's development contract, so test instances only (handshake.ts).
  const devBrowser = instance?.environment === 'test' ? q.get(DEV_BROWSER_PARAM) : null;
  const sessionId = q.get(CLERK_SESSION_PARAM);
  for (const p of CLERK_QUERY_PARAMS) q.delete(p);

  // A list answered whole (the user's own memberships, invitations…) or by cursor pages: Clerk's page is cut from it.
  const list = route && method === 'GET' && LIST_PARAMS.some((p) => q.has(p)) ? clerkPage(q) : null;
  const query = shapeOf(route?.endpoint.query);
  if (query) {
    for (const k of [...q.keys()]) if (!(k in query) || (list && LIST_PARAMS.includes(k))) q.delete(k);
    // The session this request acts for: one of the client's (the route refuses another client's as not found).
    if (sessionId && 'session_id' in query) q.set('session_id', sessionId);
  }

  const headers = new Headers(req.headers);
  // The instance is the fapi_url's: Clerk's client sends no publishable key.
  if (instance && !headers.has('x-publishable-key')) headers.set('x-publishable-key', instance.publishableKey);
  // The FAPI's own cookie wins: a dev-browser token the app kept may be one a sign-in has since rotated.
  const cookies = headers.get('cookie') ?? '';
  if (devBrowser && !/(?:^|;\s*)__client=/.test(cookies))
    headers.set('cookie', cookies ? `${cookies}; __client=${devBrowser}` : `__client=${devBrowser}`);

  let body: string | Uint8Array<ArrayBuffer> | undefined;
  if (method !== 'GET' && req.method !== 'GET') {
    body = to.body;
    const fields = bodyShape(route);
    if (((headers.get('content-type') ?? '').startsWith(FORM) || (line?.fields && to.body.byteLength === 0)) && fields) {
      body = formBody(to.body, fields, method, line?.fields);
      headers.set('content-type', 'application/json');
      headers.delete('content-length');
    }
  }
  if (method === 'GET') headers.delete('content-type');
  return {
    request: new Request(url, { method, headers, body: method === 'GET' ? undefined : body }),
    state: instance ? { deps, instance, devBrowser } : null,
    list,
  };
}
