import { Hono, type Context } from 'hono';
import type { Deps } from '../deps';
import { parseBody } from './body';
import type { Endpoint, Method } from './endpoint';
import { AppError } from './errors';
import { requestContext, requestInfo, jsonError, type SurfaceEnv } from './request-context';
import { isStorableText, validate } from './validate';
import { z } from 'zod';

export interface RouteEntry<Guard> {
  method: Method;
  path: string;
  guard: Guard;
  endpoint: Endpoint<any, any, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
}

export interface Surface<Guard, Auth> {
  name: string;
  routes: RouteEntry<Guard>[];
  /** Runs before input parsing: credentials, limits, permissions. */
  authenticate(c: Context<SurfaceEnv>, route: RouteEntry<Guard>): Promise<Auth>;
  /**
   * Wraps the handler, e.g. in an idempotent transaction. Receives the raw body and
   * returns the status and serialised response.
   */
  around?(args: {
    c: Context<SurfaceEnv>;
    route: RouteEntry<Guard>;
    auth: Auth;
    rawBody: string;
    deps: Deps;
    run(deps: Deps): Promise<{ status: number; body: string }>;
  }): Promise<{ status: number; body: string; headers?: Record<string, string> }>;
  acceptsForm?: boolean;
}

const EMPTY_BODY = z.strictObject({});
const EMPTY_QUERY = z.object({});

function queryObject(c: Context): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, values] of Object.entries(c.req.queries())) out[k] = values.length === 1 ? values[0]! : values;
  return out;
}

const patternOf = (path: string) => new RegExp(`^${path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`);

/** Builds a Hono app from a surface's route table: one place adds auth, validation, logging and errors. */
export function buildSurface<Guard, Auth>(deps: Deps, surface: Surface<Guard, Auth>): Hono<SurfaceEnv> {
  const app = new Hono<SurfaceEnv>();
  app.use('*', requestContext(deps, surface.name));
  app.onError(jsonError(deps));

  for (const route of surface.routes) {
    const { endpoint } = route;
    const hasBody = route.method !== 'GET';
    app.on(route.method, route.path, async (c) => {
      c.set('route', route.path);
      const auth = await surface.authenticate(c, route);
      // No stored id holds a NUL or invalid Unicode; the database would refuse to compare with one.
      if (!Object.values(c.req.param() as Record<string, string>).every(isStorableText)) throw new AppError('NOT_FOUND');
      const parsed = hasBody ? await parseBody(c, { form: surface.acceptsForm }) : { raw: '', value: undefined };
      const body = hasBody ? validate(endpoint.body ?? EMPTY_BODY, parsed.value, 'body') : undefined;
      const query = validate(endpoint.query ?? EMPTY_QUERY, queryObject(c), 'query');
      const request = requestInfo(c, deps.config.TRUST_PROXY);
      const run = async (d: Deps) => {
        const result = await endpoint.handle({ deps: d, auth, body, query, params: c.req.param(), request });
        return { status: endpoint.status ?? 200, body: JSON.stringify(result) };
      };
      const out = surface.around
        ? await surface.around({ c, route, auth, rawBody: parsed.raw, deps, run })
        : await run(deps);
      const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
      Object.assign(headers, 'headers' in out ? out.headers : undefined);
      return c.body(out.body, out.status as 200, headers);
    });
  }

  const patterns = surface.routes.map((r) => ({ method: r.method as string, re: patternOf(r.path) }));
  const sendError = jsonError(deps);
  app.notFound((c) => {
    const allowed = patterns.filter((p) => p.re.test(c.req.path)).map((p) => p.method);
    if (allowed.length > 0) {
      const allow = [...new Set(allowed)].join(', ');
      return sendError(new AppError('METHOD_NOT_ALLOWED', {
        message: `${c.req.method} is not allowed here; use ${allow}.`,
        headers: { allow },
        meta: { allowed },
      }), c);
    }
    return sendError(new AppError('NOT_FOUND', { message: `No route matches ${c.req.method} ${c.req.path}.` }), c);
  });
  return app;
}
