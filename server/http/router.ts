import { Hono, type Context } from 'hono';
import { z } from 'zod';
import type { Deps } from '../deps';
import type { Actor } from './actor';
import { parseBody } from './body';
import { isSpecialResult, type Endpoint, type Method, type MountableEndpoint, type RequestInfo, type SpecialResult } from './endpoint';
import { AppError } from './errors';
import { dialectCallOf, serveInDialect, type DialectLayer } from './dialect';
import { toAppError, type Protocol } from './protocol';
import { requestContext, requestInfo, type SurfaceEnv } from './request-context';
import { unknownResponseFields } from './response-check';
import { auditTrail, transactionKeepingRefusals, type AuditEntry, type AuditTrail } from './transaction';
import { isStorableText, validate } from './validate';
import { renderAnswer } from './answer-headers';
import { apiSecurityHeaders } from './security-headers';

export interface RouteEntry<Guard, Auth> {
  method: Method;
  path: string;
  guard: Guard;
  endpoint: MountableEndpoint<Auth>;
}

interface RouteInput {
  body: unknown;
  query: unknown;
  params: Record<string, string>;
}

/** What the router runs on behalf of the domains that own it; server/api/router-guards.ts supplies them to every surface. */
export interface RouterGuards {
  /** Refuses a request that the instance's network ACL denies (before authentication, hence before any rate limit). */
  networkAcl(deps: Deps, surface: string, instanceId: string, request: RequestInfo): Promise<void>;
  /** Writes the router's audit entry of a state change, inside that change's transaction. */
  audit(deps: Deps, entry: AuditEntry): Promise<void>;
}

export interface Surface<Guard, Auth> {
  name: string;
  protocol: Protocol;
  routes: RouteEntry<Guard, Auth>[];
  /**
   * Instance-scoped surfaces name the instance a request is for (or null when it names
   * none it may use); the router applies that instance's network ACL before authenticate,
   * hence before any rate limit. Surfaces without it (dashboard, ops) are never subject to one.
   */
  instanceOf?(c: Context<SurfaceEnv>, route: RouteEntry<Guard, Auth>): Promise<string | null>;
  /** Another vendor's dialect of the surface (http/dialect.ts), in front of its routes; the translated request is served by this surface again. */
  dialect?: DialectLayer;
  /** Runs before input parsing: credentials, limits, the route's guard. */
  authenticate(c: Context<SurfaceEnv>, route: RouteEntry<Guard, Auth>): Promise<Auth>;
  /** The actor of an authenticated request. */
  actorOf(auth: Auth, request: RequestInfo): Actor;
  /** Runs once the answer is rendered, an error's too (c.res): e.g. SCIM counts a directory's failed requests. */
  answered?(c: Context<SurfaceEnv>): Promise<void>;
  /** Checks that depend on the validated input (an extra scope for some bodies); runs before any replay. */
  authorize?(auth: Auth, route: RouteEntry<Guard, Auth>, input: RouteInput): void | Promise<void>;
  /**
   * Wraps the handler, e.g. in an idempotent transaction. Receives the raw body and
   * returns the status and serialised response.
   */
  around?(args: {
    c: Context<SurfaceEnv>;
    route: RouteEntry<Guard, Auth>;
    auth: Auth;
    rawBody: string;
    deps: Deps;
    run(deps: Deps): Promise<Rendered>;
  }): Promise<Rendered>;
}

/** A serialised result, as stored for an idempotent replay. */
interface Rendered {
  status: number;
  /** Bytes for a `bytes` result (an image), a stream for a `stream` one (an export); every other result is text. */
  body: string | Uint8Array | ReadableStream<Uint8Array>;
  headers?: Record<string, string>;
}

const EMPTY_BODY = z.strictObject({});
const EMPTY_QUERY = z.object({});
/** Responses are checked against their schema in tests, so an undeclared field fails the suite. */
const CHECK_RESPONSES = Boolean(process.env.VITEST);

function queryObject(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, values] of Object.entries(c.req.queries())) out[k] = values.length === 1 ? values[0]! : values;
  return out;
}

const patternOf = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`);

/**
 * A path parameter unless the endpoint narrows it: storable text of a sensible length (a stored
 * id never is otherwise). Checked by hand, not by a zod schema: every request of most routes pays it.
 */
const isPathParam = (v: string) => v.length >= 1 && v.length <= 256 && isStorableText(v);

/** Path parameters validated (the endpoint's zod schema, else isPathParam); one that cannot name anything is 404, like a missing resource. */
function pathParams(c: Context, endpoint: Pick<Endpoint, 'params'>): Record<string, string> {
  const given = c.req.param() as Record<string, string>;
  if (!endpoint.params) {
    for (const k in given) if (!isPathParam(given[k]!)) throw new AppError('NOT_FOUND');
    return given;
  }
  const parsed = endpoint.params.safeParse(given);
  if (!parsed.success) throw new AppError('NOT_FOUND');
  return parsed.data;
}

function render(protocol: Protocol, endpoint: Pick<Endpoint, 'status' | 'response' | 'summary'>, result: unknown): Rendered {
  if (!isSpecialResult(result)) {
    if (endpoint.status === 204) return { status: 204, body: '' };
    if (CHECK_RESPONSES) checkResponse(endpoint, result);
    return { status: endpoint.status ?? 200, body: JSON.stringify(result), headers: { 'content-type': protocol.contentType } };
  }
  const r: SpecialResult = result;
  switch (r.kind) {
    case 'redirect':
      return { status: r.status, body: '', headers: { ...r.headers, location: r.location } };
    case 'text':
      return { status: r.status, body: r.text, headers: { 'content-type': r.contentType, ...r.headers } };
    case 'empty':
      return { status: 204, body: '', headers: r.headers };
    case 'json':
      return { status: r.status, body: JSON.stringify(r.value), headers: { 'content-type': protocol.contentType, ...r.headers } };
    case 'bytes':
      return {
        status: r.status,
        body: r.bytes,
        headers: { 'content-type': r.contentType, 'content-length': String(r.bytes.byteLength), ...r.headers },
      };
    case 'stream':
      return { status: 200, body: r.stream, headers: { 'content-type': r.contentType, ...r.headers } };
  }
}

function checkResponse(endpoint: Pick<Endpoint, 'response' | 'summary'>, result: unknown) {
  const parsed = endpoint.response.safeParse(result);
  if (!parsed.success) throw new Error(`Response of "${endpoint.summary}" does not match its schema: ${parsed.error.message}`);
  const extra = unknownResponseFields(result, parsed.data);
  if (extra.length) throw new Error(`Response of "${endpoint.summary}" has fields its schema does not name: ${extra.join(', ')}`);
}

/** The target of a router-written audit entry: the named path parameter, else the result's id. */
function auditTarget(spec: { target?: string }, params: Record<string, string>, result: unknown): string | null {
  if (spec.target) return params[spec.target] ?? null;
  const id = (result as { id?: unknown } | null)?.id;
  return typeof id === 'string' ? id : (params.id ?? null);
}

/**
 * Builds a Hono app from a surface's route table: one place adds authentication, input
 * validation, authorization, audit, rendering in the surface's protocol, logging and errors.
 */
export function buildSurface<Guard, Auth>(deps: Deps, surface: Surface<Guard, Auth>, guards: RouterGuards): Hono<SurfaceEnv> {
  const { protocol } = surface;
  const security = apiSecurityHeaders(surface.name);
  const app = new Hono<SurfaceEnv>();
  // First: a dialect's request is translated and served again, logged once as the route that served it.
  if (surface.dialect)
    app.use(
      '*',
      surface.dialect((req, env) => app.fetch(req, env)),
    );
  app.use('*', requestContext(deps, surface.name));
  app.onError((err, c) => protocol.renderError(toAppError(deps, err, c), c));
  const { answered } = surface;
  if (answered)
    app.use('*', async (c, next) => {
      await next();
      await answered(c);
    });

  for (const route of surface.routes) {
    const { endpoint } = route;
    const hasBody = route.method !== 'GET';
    const media = [
      ...protocol.media,
      ...(endpoint.multipart ? (['multipart'] as const) : []),
      ...(endpoint.form ? (['form'] as const) : []),
    ];
    app.on(route.method, route.path, async (c) => {
      c.set('route', route.path);
      const request = requestInfo(c, deps.config);
      const instanceId = await surface.instanceOf?.(c, route);
      if (instanceId) await guards.networkAcl(deps, surface.name, instanceId, request);
      const auth = await surface.authenticate(c, route);
      const params = pathParams(c, endpoint);
      const parsed = hasBody ? await parseBody(c, media, { strictForm: protocol.strictForm }) : { raw: '', value: undefined };
      const body = hasBody ? validate(endpoint.body ?? EMPTY_BODY, parsed.value, 'body') : undefined;
      // No query string and no schema: nothing to check, and EMPTY_QUERY would answer {}.
      const query = endpoint.query || c.req.url.includes('?') ? validate(endpoint.query ?? EMPTY_QUERY, queryObject(c), 'query') : {};
      await surface.authorize?.(auth, route, { body, query, params });
      const actor = surface.actorOf(auth, request);
      const raw = { body: parsed.raw, header: (name: string) => c.req.header(name) };
      const spec = endpoint.audit;
      // A dialect's request (http/dialect.ts) runs the endpoint as its call says: a list as the dialect's page, the line's step around it.
      const call = dialectCallOf(c.env);
      const handle = (d: Deps) => {
        const ctx = { deps: d, auth, actor, body, query, params, request, raw };
        const run = (x: typeof ctx) => endpoint.handle({ ...x, body: x.body as never, query: x.query as never });
        return call ? serveInDialect(call, ctx, endpoint.query, run) : run(ctx);
      };
      const run = async (d: Deps): Promise<Rendered> => {
        // Unaudited routes, and domains that audit inside their own transaction, run as they are.
        if (!spec || 'unaudited' in spec || spec.recordedBy === 'domain') return render(protocol, endpoint, await handle(d));
        return transactionKeepingRefusals(d, async (tx) => {
          const trail: AuditTrail = { written: 0 };
          const result = await auditTrail.run(trail, () => handle(tx));
          if (trail.written === 0) {
            await guards.audit(tx, {
              instanceId: actorInstance(auth),
              actor: actor.ref,
              actorKind: actor.kind,
              action: spec.action,
              target: auditTarget(spec, params, result),
              ...(spec.details ? { details: spec.details(body) } : {}),
              ip: actor.ip,
              userAgent: actor.userAgent,
            });
          }
          return render(protocol, endpoint, result);
        });
      };
      const out = surface.around ? await surface.around({ c, route, auth, rawBody: parsed.raw, deps, run }) : await run(deps);
      const payload =
        out.status === 204 || out.status === 304 || out.body === ''
          ? null
          : typeof out.body === 'string' || out.body instanceof ReadableStream
            ? out.body
            : new Uint8Array(out.body);
      return renderAnswer(c, out.status, payload, out.headers, security);
    });
  }

  const patterns = surface.routes.map((r) => ({ method: r.method as string, re: patternOf(r.path) }));
  app.notFound((c) => {
    const allowed = patterns.filter((p) => p.re.test(c.req.path)).map((p) => p.method);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed)].join(', ');
      return protocol.renderError(
        new AppError('METHOD_NOT_ALLOWED', {
          message: `${c.req.method} is not allowed here; use ${allow}.`,
          headers: { allow },
          meta: { allowed },
        }),
        c,
      );
    }
    return protocol.renderError(new AppError('NOT_FOUND', { message: `No route matches ${c.req.method} ${c.req.path}.` }), c);
  });
  return app;
}

/** The instance an audit entry belongs to: the one the caller acts on, when the surface's auth names one. */
function actorInstance(auth: unknown): string | null {
  const a = auth as { instance?: { id?: string } | null } | null;
  return a?.instance?.id ?? null;
}
