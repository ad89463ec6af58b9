import { AsyncLocalStorage } from 'node:async_hooks';
import type { Context, MiddlewareHandler } from 'hono';
import { readLimited } from '../../../http/body';
import type { SurfaceEnv } from '../../../http/request-context';

/**
 * Clerk's backend API dialect, for `@clerk/backend` pointed at Latchkey (`apiUrl`). It is
 * switched on by the `Clerk-API-Version` header the SDK always sends, and only then: without
 * it every answer is exactly Latchkey's contract. All Clerk-specific shaping lives here:
 *
 * - successful JSON answers carry `Content-Type: application/json` (the SDK parses a body
 *   as JSON only on that exact value);
 * - resources gain the fields the SDK dereferences (`linked_to`, `image_url`, `url`, …);
 * - errors gain `meta.param_name` (beside `meta.param`) and `clerk_trace_id` (beside `trace_id`);
 * - list endpoints accept `offset` and Clerk's extra parameters and answer `total_count`
 *   (clerkList in ./lists.ts reads the mode through `inClerkMode()`).
 */
export const CLERK_API_VERSION_HEADER = 'clerk-api-version';

/** Query parameters of Clerk's list mode, taken off the URL so every route's own query schema stays strict. */
export const CLERK_LIST_PARAMS = ['offset', 'paginated', 'order_by', 'requesting_user_id', 'expired_token', 'request_origin'] as const;
export type ClerkListParams = Partial<Record<(typeof CLERK_LIST_PARAMS)[number], string>>;

/**
 * Body fields of the SDK's `sessions.refreshSession` beside `refresh_token`: taken off the body
 * (the route's own schema stays strict) into the request's Clerk context (see
 * clerkRefreshParams and server/api/bapi/clerk/endpoints.ts).
 */
export const CLERK_REFRESH_FIELDS = ['expired_token', 'request_origin', 'request_originating_ip', 'request_headers', 'format'] as const;
export type ClerkRefreshParams = Partial<Record<(typeof CLERK_REFRESH_FIELDS)[number], unknown>>;

const mode = new AsyncLocalStorage<{ list: ClerkListParams; refresh: ClerkRefreshParams }>();

/** True while serving a request that carries the Clerk-API-Version header. */
export const inClerkMode = () => mode.getStore() !== undefined;
/** The Clerk list parameters of the request being served (empty outside Clerk mode). */
export const clerkListParams = (): ClerkListParams => mode.getStore()?.list ?? {};
/** The refresh fields the SDK sent (empty outside Clerk mode). */
export const clerkRefreshParams = (): ClerkRefreshParams => mode.getStore()?.refresh ?? {};

/** Moves Clerk's list parameters from the URL to the request's Clerk context. */
function takeListParams(req: Request): { req: Request | null; list: ClerkListParams } {
  const url = new URL(req.url);
  const list: ClerkListParams = {};
  for (const p of CLERK_LIST_PARAMS) {
    const v = url.searchParams.get(p);
    if (v !== null) list[p] = v.slice(0, 2048);
    url.searchParams.delete(p);
  }
  if (Object.keys(list).length === 0) return { req: null, list };
  return { req: new Request(url, req), list };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Fields the SDK reads that Latchkey's resources name differently or not at all; never overrides a field we have. */
function shapeResource(r: Json): void {
  const add = (k: string, v: unknown) => {
    if (!(k in r)) r[k] = v;
  };
  switch (r.object) {
    case 'user':
      add('image_url', '');
      add('has_image', false);
      add('web3_wallets', []);
      add('external_accounts', []);
      add('enterprise_accounts', []);
      break;
    case 'email_address':
    case 'phone_number':
      add('linked_to', []);
      break;
    case 'session':
      add('client_id', null);
      add('actor', r.impersonated_by ? { sub: r.impersonated_by } : null);
      add('updated_at', r.last_active_at ?? r.created_at);
      break;
    case 'organization':
      add('image_url', '');
      add('has_image', false);
      break;
    case 'actor_token':
    case 'sign_in_token':
    case 'invitation':
    case 'organization_invitation':
      add('url', null);
      break;
  }
}

/** Walks an answer, shaping every resource it contains (users inside memberships, addresses inside users…). */
function shape(v: unknown, depth = 0): void {
  if (depth > 8) return;
  if (Array.isArray(v)) {
    for (const x of v) shape(x, depth + 1);
    return;
  }
  if (!isObject(v)) return;
  if (typeof v.object === 'string') shapeResource(v);
  for (const [k, x] of Object.entries(v)) {
    // Metadata is the caller's own data: never reshaped.
    if (k.endsWith('_metadata')) continue;
    if (typeof x === 'object' && x !== null) shape(x, depth + 1);
  }
}

function shapeError(body: Json): void {
  if (Array.isArray(body.errors)) {
    for (const e of body.errors) {
      if (isObject(e) && isObject(e.meta) && typeof e.meta.param === 'string') e.meta.param_name ??= e.meta.param;
    }
  }
  if (typeof body.trace_id === 'string') body.clerk_trace_id = body.trace_id;
}

/**
 * Body fields the SDK sends that only steer Clerk's own behaviour; accepted and ignored:
 * Latchkey never requires a password (`skip_password_requirement`), authorizes by the
 * secret key alone (`requesting_user_id`) and sends no allowlist notification (`notify`).
 */
const IGNORED_BODY_FIELDS = ['skip_password_requirement', 'requesting_user_id', 'notify', 'skip_legal_checks'];

const isRefresh = (req: Request) => req.method === 'POST' && /\/v1\/sessions\/[^/]+\/refresh$/.test(new URL(req.url).pathname);

/**
 * A JSON request without IGNORED_BODY_FIELDS and, on a session refresh, without
 * CLERK_REFRESH_FIELDS (copied to `refresh`); read within the body limit, anything else is left
 * to the router. `request` is null when the body is not JSON.
 */
async function withoutClerkFields(c: Context<SurfaceEnv>): Promise<{ request: Request | null; refresh: ClerkRefreshParams }> {
  const req = c.req.raw;
  const refresh: ClerkRefreshParams = {};
  if (req.method === 'GET' || !(req.headers.get('content-type') ?? '').startsWith('application/json')) return { request: null, refresh };
  const text = Buffer.from(await readLimited(c)).toString('utf8');
  const headers = new Headers(req.headers);
  headers.delete('content-length');
  const rebuilt = (body: string) => ({ request: new Request(req.url, { method: req.method, headers, body }), refresh });
  const fields: readonly string[] = isRefresh(req) ? [...IGNORED_BODY_FIELDS, ...CLERK_REFRESH_FIELDS] : IGNORED_BODY_FIELDS;
  if (!fields.some((f) => text.includes(`"${f}"`))) return rebuilt(text);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return rebuilt(text);
  }
  if (!isObject(body)) return rebuilt(text);
  for (const f of CLERK_REFRESH_FIELDS) if (fields.includes(f) && f in body) refresh[f] = body[f];
  for (const f of fields) delete body[f];
  return rebuilt(JSON.stringify(body));
}

/** The BAPI middleware of the Clerk dialect (see above). */
export function clerkCompat(): MiddlewareHandler<SurfaceEnv> {
  return async (c, next) => {
    if (c.req.header(CLERK_API_VERSION_HEADER) === undefined) return next();
    const { request: rewritten, refresh } = await withoutClerkFields(c);
    if (rewritten) c.req.raw = rewritten;
    const { req, list } = c.req.method === 'GET' ? takeListParams(c.req.raw) : { req: null, list: {} };
    if (req) c.req.raw = req;
    await mode.run({ list, refresh }, next);
    const res = c.res;
    const type = res.headers.get('content-type') ?? '';
    if (!type.startsWith('application/json') || res.status === 204) return;
    const text = await res.clone().text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return;
    }
    if (isObject(body) && res.status >= 400) shapeError(body);
    else shape(body);
    const headers = new Headers(res.headers);
    headers.set('content-type', 'application/json');
    headers.delete('content-length');
    c.res = new Response(JSON.stringify(body), { status: res.status, headers });
  };
}
