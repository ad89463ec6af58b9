import type { MiddlewareHandler } from 'hono';
import type { Deps } from '../../../deps';
import type { RouteEntry } from '../../../http/router';
import { instanceContext, type InstanceContext } from '../../../instances/instances';
import { findClient } from '../../../sessions/clients';
import { clerkClient } from './client';
import { clerkEnvironment } from './environment';
import { clerkErrorBody } from './errors';
import { validationError } from '../../../http/errors';
import { DEV_BROWSER_HEADER, isClerkFapiRequest, type ClerkFapiRequest } from './mode';
import { toLatchkeyRequest } from './request';
import { clerkResource, clerkSession, clerkSessionVerification } from './shapes';

/**
 * The Clerk dialect of the FAPI, for `@clerk/clerk-js` (and `@clerk/nextjs`, `@clerk/clerk-react`,
 * Clerk's prebuilt components, which all run on it) pointed at an instance's fapi_url with
 * `proxyUrl`. Selected by the parameters clerk-js sends on every request (mode.ts); without them
 * this middleware does nothing. A Clerk request is translated (request.ts), served by
 * Latchkey's own routes — same guards, limits, audit and `completeSignIn` — and its answer put
 * in Clerk's envelope: `{response, client}` where `client` is the browser's client after the
 * request, in Clerk's shapes (client.ts, shapes.ts, environment.ts, errors.ts).
 *
 * `dispatch` serves the translated request through the surface again (routes are matched
 * before middleware runs, so a changed method or path needs a new dispatch).
 */
export function clerkFapiDialect(
  deps: Deps,
  routes: RouteEntry<unknown, unknown>[],
  dispatch: (req: Request, env: unknown) => Response | Promise<Response>,
): MiddlewareHandler {
  return async (c, next) => {
    const url = new URL(c.req.url);
    if (!isClerkFapiRequest(url)) return next();
    if (c.req.method === 'POST' && BULK_INVITATIONS.test(url.pathname)) return bulkInvitations(c.req.raw, (r) => dispatch(r, c.env));
    const instanceId = /^\/fapi\/([^/]+)/.exec(url.pathname)?.[1] ?? '';
    const instance = await instanceContext(deps, instanceId).catch(() => null);
    const { request, ctx } = await toLatchkeyRequest(c.req.raw, routes, { devBrowser: instance?.environment === 'test' });
    // The instance is the fapi_url's: Clerk's client sends no publishable key.
    if (instance && !request.headers.has('x-publishable-key')) request.headers.set('x-publishable-key', instance.publishableKey);
    const res = await dispatch(request, c.env);
    if (!instance) return res;
    const list = ctx.list && res.status === 200 ? await wholeList(request, res.clone(), (r) => dispatch(r, c.env)) : null;
    return toClerkResponse(deps, instance, request, ctx, res, list);
  };
}

const BULK_INVITATIONS = /^\/fapi\/[^/]+\/v1\/organizations\/[^/]+\/invitations\/bulk\/?$/;
/** As many invitations as Latchkey's own bulk invitation takes (BAPI). */
const MAX_BULK = 50;

/**
 * `POST /v1/organizations/:id/invitations/bulk` (Clerk's invitation screen): `email_address`
 * repeated, one `role`. Each address is invited through the organization's own invitation route
 * in turn — its guard, sending budgets and audit for each — and the answer lists the
 * invitations. The first refusal is the answer (the invitations before it stay sent).
 */
async function bulkInvitations(req: Request, fetchClerk: (r: Request) => Response | Promise<Response>): Promise<Response> {
  const form = new URLSearchParams(await req.text());
  const addresses = form.getAll('email_address');
  if (addresses.length === 0 || addresses.length > MAX_BULK) {
    const error = validationError('email_address', addresses.length ? 'too_long' : 'required', `Send 1 to ${MAX_BULK} email addresses.`);
    return Response.json(clerkErrorBody({ errors: error.entries() }), { status: error.status });
  }
  const url = new URL(req.url);
  url.pathname = url.pathname.replace(/\/bulk\/?$/, '');
  const invitations: unknown[] = [];
  let last: { response?: unknown; client?: unknown } = {};
  let headers = new Headers();
  for (const address of addresses) {
    const body = new URLSearchParams({ email_address: address, ...(form.get('role') ? { role: form.get('role')! } : {}) });
    const sent = new Headers(req.headers);
    sent.delete('content-length');
    const res = await fetchClerk(new Request(url, { method: 'POST', headers: sent, body }));
    if (res.status !== 200) return res;
    last = (await res.json()) as typeof last;
    invitations.push(last.response);
    // The answer's headers (CORS, no-store…) are the invitation route's.
    headers = new Headers(res.headers);
  }
  headers.delete('content-length');
  return new Response(JSON.stringify({ response: invitations, client: last.client ?? null }), { status: 200, headers });
}

interface LatchkeyList {
  object: 'list';
  data: { id: string }[];
  has_more: boolean;
}
const isList = (v: unknown): v is LatchkeyList => (v as LatchkeyList | null)?.object === 'list' && Array.isArray((v as LatchkeyList).data);
/** How many items a Clerk list reads through Latchkey's cursor pages: `total_count` is exact up to this many. */
const MAX_WALK = 5_000;

/**
 * Every item of a Latchkey list (its cursor pages, `starting_after` the last id seen, each
 * page served again through the router and its guards), or null when the answer is no list.
 */
async function wholeList(request: Request, res: Response, fetchPage: (r: Request) => Response | Promise<Response>): Promise<unknown[] | null> {
  if (!(res.headers.get('content-type') ?? '').includes('json')) return null;
  let page: unknown = await res.json();
  if (!isList(page)) return null;
  const items: unknown[] = [...page.data];
  while (page.has_more && page.data.length > 0 && items.length < MAX_WALK) {
    const url = new URL(request.url);
    url.searchParams.set('starting_after', page.data[page.data.length - 1]!.id);
    const next = await fetchPage(new Request(url, { method: 'GET', headers: request.headers }));
    if (next.status !== 200) break;
    page = await next.json();
    if (!isList(page)) break;
    items.push(...page.data);
  }
  return items;
}

/** Lists Clerk answers as a bare array in its envelope. */
const BARE_LISTS = [/\/v1\/me\/enterprise_connections$/];

/** Paths whose answers are already Clerk's (or need no envelope). */
const AS_IS = [/\/v1\/client\/sessions\/[^/]+\/tokens(\/[^/]+)?$/, /\/v1\/dev_browser$/, /\/v1\/client\/handshake$/];

/** The client token the browser holds after this answer: the one it set (none if it cleared it), else the one it sent. */
function clientTokenAfter(request: Request, res: Response): string | null {
  for (const cookie of res.headers.getSetCookie()) {
    const m = /^__client=([^;]*);/.exec(cookie);
    if (m) return /max-age=0/i.test(cookie) ? null : m[1]!;
  }
  const sent = /(?:^|;\s*)__client=([^;]+)/.exec(request.headers.get('cookie') ?? '');
  return sent?.[1] ?? null;
}

/** A user's profile image, as Clerk's image resource (`user.setProfileImage` answers one). */
const clerkImage = (user: { id?: string; image_url?: string | null }) => ({ object: 'image', id: `img_${user.id}`, name: null, public_url: user.image_url ?? null });

async function toClerkResponse(deps: Deps, instance: InstanceContext, request: Request, ctx: ClerkFapiRequest, res: Response, list: unknown[] | null): Promise<Response> {
  const headers = new Headers(res.headers);
  const token = clientTokenAfter(request, res);
  if (ctx.devBrowser && token && token !== ctx.devBrowser) {
    // The client's token rotated (a sign-in completed): the browser's dev-browser token follows.
    headers.set(DEV_BROWSER_HEADER, token);
    headers.append('access-control-expose-headers', DEV_BROWSER_HEADER);
  }
  if (!(res.headers.get('content-type') ?? '').includes('json') || res.status === 204) return new Response(res.body, { status: res.status, headers });
  const body: unknown = await res.json();
  const path = new URL(request.url).pathname;
  let out: unknown;
  if (res.status >= 400) out = clerkErrorBody(body);
  else if (list && ctx.list) {
    // Clerk's page of the whole list, and its size.
    const page = list.slice(ctx.list.offset, ctx.list.offset + ctx.list.limit).map(clerkResource);
    out = { response: { data: page, total_count: list.length }, client: null };
  } else if (request.method === 'GET' && path.endsWith('/v1/me/sessions') && isList(body)) {
    // Clerk answers the account's sessions as a bare array, each with its latest activity.
    out = (body.data as { impersonated_by?: string | null }[]).map((s) => ({ ...s, actor: s.impersonated_by ? { sub: s.impersonated_by } : null }));
  } else if (BARE_LISTS.some((re) => re.test(path)) && isList(body)) {
    out = { response: body.data.map(clerkResource), client: null };
  } else if (path.endsWith('/v1/me/profile_image')) out = { response: clerkImage(body as never), client: null };
  else if (AS_IS.some((re) => re.test(path))) out = body;
  else if (path.endsWith('/v1/environment')) out = clerkEnvironment(body as never, instance);
  else {
    const client = token ? await clerkClient(deps, instance, (await findClient(deps, instance, token)).client) : null;
    const b = body as { object?: string; response?: unknown };
    if (b.object === 'client') out = { response: client, client: null };
    else {
      const inner = b.response ?? body;
      const obj = inner as { object?: string; id?: string };
      const sessionOfClient = (id: unknown) => client?.sessions.find((s) => s.id === id);
      // The client's copy of a user carries what `/v1/me` does not (memberships, passkeys).
      const userOfClient = (id: unknown) => client?.sessions.find((s) => s.public_user_data?.user_id === id)?.user;
      const response =
        obj?.object === 'session'
          ? (sessionOfClient(obj.id) ?? clerkSession(obj as never, null))
          : obj?.object === 'session_verification'
            ? clerkSessionVerification(obj as never, sessionOfClient((obj as { session_id?: string }).session_id) ?? null)
            : obj?.object === 'user'
              ? (userOfClient(obj.id) ?? clerkResource(inner))
              : clerkResource(inner);
      out = { response, client };
    }
  }
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(out), { status: res.status, headers });
}
