import type { MiddlewareHandler } from 'hono';
import { z } from 'zod';
import { jsonResult, type EndpointContext, type Method } from './endpoint';
import { AppError, validationError } from './errors';
import { bodyWithinLimit, tooLarge } from './body';

/**
 * A dialect of a surface: another vendor's SDK (Clerk's) speaking to it in its own paths, fields
 * and shapes. Each surface declares its dialect as a table beside its route table, one line per
 * method and path of the dialect that Latchkey's own route there does not answer as it is: the
 * Latchkey route it is (`to`), the body fields it fixes or takes off, whether it is a list
 * answered as the dialect's page, and its answer's reshaper. One mechanism serves every dialect:
 *
 * 1. `dialectLayer`, in front of the surface's router, passes every request the dialect does
 *    not select through untouched; a selected one is matched against the table, renamed to its
 *    route, translated by the surface (`translate`: its own parameters and encodings) and served
 *    by the router again — same guards, limits and audit;
 * 2. the router runs the endpoint as the request's `DialectCall` says (handed over in the
 *    dispatch's environment): a list's pages walked in process, the line's step `around` it
 *    (`serveInDialect`);
 * 3. the answer is reshaped: errors by the dialect's error shape, then the line's reshaper, else
 *    the dialect's own.
 */

type Json = Record<string, unknown>;
export const isJsonObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What a reshaper knows of the exchange: the surface's state, the request the route served, its answer. */
export interface Exchange<S> {
  state: S;
  request: Request;
  response: Response;
  call: DialectCall;
}
export type Reshape<S> = (answer: unknown, exchange: Exchange<S>) => unknown;

export interface DialectLine<S, Auth = unknown> {
  /** The dialect's method and path (under the surface's prefix; `:name` segments). */
  method: Method;
  path: string;
  /** The Latchkey route it is, when it is another (the line's `:name` values carried into its path). */
  to?: { method: Method; path: string };
  /** Body fields the line sets, whatever the client sent. */
  fields?: Readonly<Record<string, string>>;
  /** Body fields taken off (the route's own schema stays strict) and handed to `around`. */
  takes?: readonly string[];
  /** A list answered as the dialect's page of it; `bare`: a plain array unless the client asks for pages. */
  list?: { bare?: boolean };
  /** One request to the route per value of this repeated form field; the answer lists theirs, the first refusal is the answer. */
  each?: { field: string; max: number };
  /** Runs around the route's endpoint, after its guard and validation; `taken`: the fields the line took off. */
  around?(ctx: EndpointContext<Auth, unknown, unknown>, taken: Json, handle: () => Promise<unknown>): Promise<unknown>;
  /** The answer's shape; the dialect's own otherwise. */
  reshape?: Reshape<S>;
}

type LineOptions<S, Auth> = Omit<DialectLine<S, Auth>, 'method' | 'path' | 'to'> & { to?: Method | `${Method} /${string}` };

/** A table line; `to` is a method (same path) or `METHOD /path`. */
export function dialectLine<S, Auth = unknown>(method: Method, path: string, opts: LineOptions<S, Auth> = {}): DialectLine<S, Auth> {
  const { to, ...rest } = opts;
  if (!to) return { method, path, ...rest };
  const [toMethod, toPath] = to.split(' ');
  return { method, path, to: { method: toMethod as Method, path: toPath ?? path }, ...rest };
}

/** The dialect's page of a list: `limit` items from `offset` (the route's own `limit` when null), and how many there are up to `max`. */
export interface ListPage {
  offset: number;
  limit: number | null;
  /** `{data, total_count}`; else a plain array. */
  paginated: boolean;
  /** The sort the client asked for, taken where the list's `order_by` takes it. */
  orderBy?: string;
  max: number;
}

/** What the router is told of a dialect request, beside the translated request itself. */
export class DialectCall {
  /** Set by the router when it answered the list as the dialect's page. */
  walked = false;
  constructor(
    readonly list: ListPage | null = null,
    /** Refused where the endpoint would run (after the route's guard and validation). */
    readonly refusal: AppError | null = null,
    readonly line: Pick<DialectLine<unknown>, 'around'> | null = null,
    readonly taken: Json = {},
  ) {}
}

interface RouteLike {
  method: string;
  path: string;
  endpoint: { body?: unknown; query?: unknown };
}

/** The client's request renamed to its route: what the surface translates. */
export interface Renamed<S, Auth> {
  method: Method;
  url: URL;
  line: DialectLine<S, Auth> | null;
  route: RouteLike | undefined;
  /** The body as sent (read within the router's limit). */
  body: Uint8Array<ArrayBuffer>;
}

export interface Translated<S> {
  request: Request;
  /** The reshapers' state; null leaves the answer as the route gave it. */
  state: S | null;
  list?: ListPage | null;
  refusal?: AppError | null;
  taken?: Json;
}

export interface Dialect<S, Auth = unknown> {
  lines: readonly DialectLine<S, Auth>[];
  /** The surface's route table (full paths). */
  routes: readonly RouteLike[];
  /** The part of a path before the lines' paths (the fapi_url's `/fapi/<id>`). */
  prefix?: RegExp;
  /** Whether a request speaks the dialect. */
  selects(req: Request): boolean;
  /** The method and URL the client means (a method override, a trailing slash). */
  meant?(req: Request): { method: string; url: URL };
  /** The renamed request as its route takes it, and what the reshapers need. */
  translate(req: Request, renamed: Renamed<S, Auth>): Promise<Translated<S>>;
  reshape: Reshape<S>;
  /** A list answered as the dialect's page (default: `reshape`). */
  reshapeList?: Reshape<S>;
  reshapeError(body: unknown): unknown;
  /** Headers of every answer, JSON or not. */
  headers?(headers: Headers, exchange: Exchange<S>): void;
}

const pattern = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '([^/]+)')}/?$`);

const routeAt = <R extends RouteLike>(routes: readonly R[], method: string, path: string) =>
  routes.find((r) => r.method === method && pattern(r.path).test(path));

/** The line of a method and path (under the prefix), with its `:name` values. */
function lineAt<L extends { method: string; path: string }>(lines: readonly L[], method: string, path: string) {
  for (const line of lines) {
    const m = line.method === method ? pattern(line.path).exec(path) : null;
    if (!m) continue;
    const names = [...line.path.matchAll(/:([A-Za-z_]+)/g)].map((x) => x[1]!);
    return { line, values: Object.fromEntries(names.map((n, i) => [n, m[i + 1]!])) };
  }
  return null;
}

/** The dispatch environment's key of a dialect request's call. */
const CALL = 'dialectCall';

/** The dialect call a request was dispatched with (the router's `c.env`), or null. */
export const dialectCallOf = (env: unknown): DialectCall | null => {
  const call = isJsonObject(env) ? env[CALL] : undefined;
  return call instanceof DialectCall ? call : null;
};

/** The dialect as a middleware in front of a surface's routes, given how to serve a translated request. */
export type DialectLayer = (dispatch: (req: Request, env: unknown) => Response | Promise<Response>) => MiddlewareHandler;

/**
 * The dialect in front of a surface: a request it does not select goes on (`next`), and so does
 * one already translated; a selected one is translated and served through `dispatch` (the
 * surface, or the app in front of it) with its call in the environment.
 */
export const dialectLayer =
  <S, Auth>(dialect: Dialect<S, Auth>): DialectLayer =>
  (dispatch) =>
  async (c, next) => {
    if (dialectCallOf(c.env) || !dialect.selects(c.req.raw)) return next();
    const env = isJsonObject(c.env) ? c.env : {};
    return serve(dialect, c.req.raw, (req, call) => dispatch(req, { ...env, [CALL]: call }));
  };

type Dispatch = (req: Request, call: DialectCall) => Response | Promise<Response>;

/** A refusal of the layer itself, in the dialect's error shape. */
function refuse<S, Auth>(d: Dialect<S, Auth>, error: AppError): Response {
  return Response.json(d.reshapeError({ errors: error.entries() }), { status: error.status });
}

async function serve<S, Auth>(d: Dialect<S, Auth>, req: Request, dispatch: Dispatch): Promise<Response> {
  const { method, url } = d.meant?.(req) ?? { method: req.method, url: new URL(req.url) };
  const prefix = d.prefix?.exec(url.pathname)?.[0] ?? '';
  const found = lineAt(d.lines, method, url.pathname.slice(prefix.length));
  const line = found?.line ?? null;
  const to = line?.to;
  if (to) url.pathname = prefix + to.path.replace(/:([A-Za-z_]+)/g, (_, n: string) => found!.values[n] ?? '');
  const target = to?.method ?? (method as Method);
  const body = req.method === 'GET' || req.method === 'HEAD' ? new Uint8Array() : await bodyWithinLimit(req);
  if (!body) return refuse(d, tooLarge());
  const renamed: Renamed<S, Auth> = { method: target, url, line, route: routeAt(d.routes, target, url.pathname), body };
  return line?.each ? fanOut(d, req, renamed, line.each, dispatch) : once(d, req, renamed, dispatch);
}

async function once<S, Auth>(d: Dialect<S, Auth>, req: Request, renamed: Renamed<S, Auth>, dispatch: Dispatch): Promise<Response> {
  const t = await d.translate(req, renamed);
  const call = new DialectCall(t.list ?? null, t.refusal ?? null, renamed.line, t.taken ?? {});
  const response = await dispatch(t.request, call);
  if (t.state === null) return response;
  return reshaped(d, renamed.line, { state: t.state, request: t.request, response, call });
}

/** One route call per value of the line's repeated form field (its guard, limits and audit each time). */
async function fanOut<S, Auth>(
  d: Dialect<S, Auth>,
  req: Request,
  renamed: Renamed<S, Auth>,
  each: { field: string; max: number },
  dispatch: Dispatch,
) {
  const form = new URLSearchParams(new TextDecoder().decode(renamed.body));
  const values = form.getAll(each.field);
  if (values.length === 0 || values.length > each.max) {
    return refuse(
      d,
      validationError(each.field, values.length ? 'too_long' : 'required', `Send 1 to ${each.max} values of ${each.field}.`),
    );
  }
  const answers: unknown[] = [];
  let last: Exchange<S> | null = null;
  for (const value of values) {
    const one = new URLSearchParams(form);
    one.set(each.field, value);
    const t = await d.translate(req, { ...renamed, body: new TextEncoder().encode(one.toString()) });
    const x = { state: t.state, request: t.request, response: await dispatch(t.request, new DialectCall()), call: new DialectCall() };
    if (x.state === null) return x.response;
    const exchange = { ...x, state: x.state };
    if (x.response.status !== 200) return reshaped(d, null, exchange);
    answers.push(await x.response.json());
    last = exchange;
  }
  // The answer's headers (CORS, no-store…) are the last call's.
  return reshaped(d, renamed.line, {
    ...last!,
    response: new Response(JSON.stringify(answers), { status: 200, headers: last!.response.headers }),
  });
}

async function reshaped<S, Auth>(d: Dialect<S, Auth>, line: DialectLine<S, Auth> | null, x: Exchange<S>): Promise<Response> {
  const res = x.response;
  const headers = new Headers(res.headers);
  d.headers?.(headers, x);
  if (!(res.headers.get('content-type') ?? '').includes('json') || res.status === 204)
    return new Response(res.body, { status: res.status, headers });
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return new Response(text, { status: res.status, headers });
  }
  const reshape = res.status >= 400 ? null : x.call.walked ? (d.reshapeList ?? d.reshape) : (line?.reshape ?? d.reshape);
  const out = reshape ? await reshape(body, x) : d.reshapeError(body);
  headers.delete('content-length');
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(out), { status: res.status, headers });
}

/** How many items a page of the walk reads (the lists' largest page). */
const WALK_PAGE = 100;

const isPage = (v: unknown): v is { data: { id?: unknown }[]; has_more?: unknown; next_cursor?: unknown } =>
  isJsonObject(v) && Array.isArray(v.data);

/**
 * The endpoint as a dialect request has it run: refused with the dialect's own reason, the
 * line's step around it, and a list answered as the dialect's page — the route's cursor pages
 * walked in process (no page number exists in the domain), at most `max` items: `total_count`
 * is exact up to that many and says `max` beyond. A list the route answers whole is cut.
 */
export async function serveInDialect<Auth>(
  call: DialectCall,
  ctx: EndpointContext<Auth, unknown, unknown>,
  querySchema: unknown,
  handle: (ctx: EndpointContext<Auth, unknown, unknown>) => Promise<unknown>,
): Promise<unknown> {
  if (call.refusal) throw call.refusal;
  const around = call.line?.around;
  const run = around ? (c: EndpointContext<Auth, unknown, unknown>) => around(c, call.taken, () => handle(c)) : handle;
  const page = call.list;
  if (!page) return run(ctx);
  const shape = querySchema instanceof z.ZodObject ? (querySchema.shape as Record<string, z.ZodType>) : {};
  const q: Json = isJsonObject(ctx.query) ? { ...ctx.query } : {};
  // Clerk writes ascending order as `+field`; a list that sorts takes its own values only.
  if (page.orderBy && shape.order_by) {
    const normalized = page.orderBy.replace(/^\+/, '');
    if (shape.order_by.safeParse(normalized).success) q.order_by = normalized;
  }
  const cursor = 'starting_after' in shape;
  const want = page.offset + (page.limit ?? (typeof q.limit === 'number' ? q.limit : WALK_PAGE));
  const kept: unknown[] = [];
  let total = 0;
  let after = q.starting_after;
  for (;;) {
    const answer = await run({ ...ctx, query: cursor ? { ...q, limit: WALK_PAGE, starting_after: after } : q });
    if (!isPage(answer)) return answer;
    for (const item of answer.data) {
      if (total >= page.offset && total < want) kept.push(item);
      total += 1;
    }
    const last = answer.data[answer.data.length - 1];
    if (!cursor || answer.has_more !== true || !last || total >= page.max) break;
    after = typeof answer.next_cursor === 'string' ? answer.next_cursor : last.id;
  }
  call.walked = true;
  return jsonResult(page.paginated ? { data: kept, total_count: total } : kept, 200);
}
