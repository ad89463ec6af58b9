import type { Context } from 'hono';
import type { Deps } from '../../deps';
import { anonymousActor, scimTokenActor } from '../../http/actor';
import { AppError } from '../../http/errors';
import { scimProtocol } from '../../http/protocol';
import { enforceLimit, rateLimitHeaders } from '../../limits/rate-limit';
import { bearerToken } from '../../http/request-context';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import * as scim from './scim';
import type { ScimAuth } from './scim';
import { routeTable, type GuardAuth } from '../../http/route-table';
import { resolveScimToken, type ScimCaller } from '../../scim/tokens';
import { recordDirectoryFailure } from '../../scim/directory-status';
import { setAnswerHeader } from '../../http/answer-headers';

/** SCIM 2.0 (RFC 7644) under `{PUBLIC_URL}/scim/v2`; the bearer token names the organization. */
const SCIM_PREFIX = '/scim/v2';

/** `public`: discovery, readable without a token; `token`: an organization's SCIM token, rate limited per token. */
type ScimGuard = 'public' | 'token';
type ScimRoute = RouteEntry<ScimGuard, ScimAuth | null>;

/** Discovery's handlers get no token (null); every other one the token's auth. */
interface ScimAuthUnder extends GuardAuth {
  readonly auth: this['guard'] extends 'public' ? ScimAuth | null : ScimAuth;
}
const route = routeTable<ScimGuard, ScimAuth | null, ScimGuard, ScimAuthUnder, typeof SCIM_PREFIX>({ prefix: SCIM_PREFIX });

/** One route a line: method, path under /scim/v2, guard, endpoint. */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const scimRoutes: ScimRoute[] = [
  route('GET',    '/ServiceProviderConfig', 'public', scim.scimDiscovery.getServiceProviderConfig),
  route('GET',    '/ResourceTypes',         'public', scim.scimDiscovery.listResourceTypes),
  route('GET',    '/ResourceTypes/:id',     'public', scim.scimDiscovery.getResourceType),
  route('GET',    '/Schemas',               'public', scim.scimDiscovery.listSchemas),
  route('GET',    '/Schemas/:id',           'public', scim.scimDiscovery.getSchema),

  route('GET',    '/Users',                 'token',  scim.scimUserResources.list),
  route('POST',   '/Users',                 'token',  scim.scimUserResources.create),
  route('GET',    '/Users/:id',             'token',  scim.scimUserResources.get),
  route('PUT',    '/Users/:id',             'token',  scim.scimUserResources.replace),
  route('PATCH',  '/Users/:id',             'token',  scim.scimUserResources.patch),
  route('DELETE', '/Users/:id',             'token',  scim.scimUserResources.delete),

  route('GET',    '/Groups',                'token',  scim.scimGroupResources.list),
  route('POST',   '/Groups',                'token',  scim.scimGroupResources.create),
  route('GET',    '/Groups/:id',            'token',  scim.scimGroupResources.get),
  route('PUT',    '/Groups/:id',            'token',  scim.scimGroupResources.replace),
  route('PATCH',  '/Groups/:id',            'token',  scim.scimGroupResources.patch),
  route('DELETE', '/Groups/:id',            'token',  scim.scimGroupResources.delete),
];

const SCIM_WINDOW_MS = 10_000;
const DEFAULT_SCIM_BUDGET = 600;

/** 401 (SCIM error) for a missing, unknown or revoked token. */
async function resolveCaller(deps: Deps, c: Context): Promise<ScimCaller> {
  const secret = bearerToken(c.req.header('authorization'));
  if (!secret) {
    throw new AppError('UNAUTHENTICATED', {
      message: 'Send the organization’s SCIM token as "Authorization: Bearer scim_…".',
      headers: { 'www-authenticate': 'Bearer realm="latchkey-scim"' },
    });
  }
  return resolveScimToken(deps, secret).catch((err: unknown) => {
    if (err instanceof AppError) Object.assign(err.headers, { 'www-authenticate': 'Bearer realm="latchkey-scim", error="invalid_token"' });
    throw err;
  });
}

/** The token names the instance, which the router needs for its network ACL before authentication: resolved once per request. */
const callers = new WeakMap<Request, Promise<ScimCaller>>();
function scimCaller(deps: Deps, c: Context): Promise<ScimCaller> {
  let caller = callers.get(c.req.raw);
  if (!caller) callers.set(c.req.raw, (caller = resolveCaller(deps, c)));
  return caller;
}

/** The organization's token (401 without a valid one); 429 with Retry-After past the token's budget. */
async function authenticateScim(deps: Deps, c: Context, guard: ScimGuard): Promise<ScimAuth | null> {
  if (guard === 'public') return null;
  const caller = await scimCaller(deps, c);
  const rule = { name: 'scim_token', limit: deps.config.SCIM_RATE_LIMIT ?? DEFAULT_SCIM_BUDGET, windowMs: SCIM_WINDOW_MS };
  const decision = await enforceLimit(deps, 'scim', rule, caller.tokenId);
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) setAnswerHeader(c, name, value);
  return {
    instance: { id: caller.instanceId },
    organizationId: caller.organizationId,
    tokenId: caller.tokenId,
    ifMatch: c.req.header('if-match') ?? null,
    ifNoneMatch: c.req.header('if-none-match') ?? null,
    baseUrl: `${deps.config.PUBLIC_URL.replace(/\/$/, '')}${SCIM_PREFIX}`,
  };
}

/**
 * A failed request of a directory (a valid token, an answer of 400 or more) is counted and kept as
 * its last error for the portal and the console: the SCIM error's status, scimType and detail.
 */
async function noteFailure(deps: Deps, request: Request, res: Response) {
  if (res.status < 400) return;
  const caller = await callers.get(request)?.catch(() => null);
  if (!caller) return;
  try {
    const body = (await res
      .clone()
      .json()
      .catch(() => ({}))) as { scimType?: unknown; detail?: unknown };
    await recordDirectoryFailure(deps, caller, {
      method: request.method,
      path: new URL(request.url).pathname,
      status: res.status,
      scimType: typeof body.scimType === 'string' ? body.scimType : null,
      detail: typeof body.detail === 'string' ? body.detail : res.statusText,
    });
  } catch (err) {
    deps.logger.warn({ err, organizationId: caller.organizationId }, 'scim: could not record a failed request');
  }
}

export function createScim(deps: Deps) {
  return buildSurface<ScimGuard, ScimAuth | null>(
    deps,
    {
      name: 'scim',
      routes: scimRoutes,
      protocol: scimProtocol,
      // Discovery is public and names no instance; every other route, its token's.
      instanceOf: async (c, r) => (r.guard === 'token' ? (await scimCaller(deps, c)).instanceId : null),
      authenticate: (c, r) => authenticateScim(deps, c, r.guard),
      actorOf: (auth, request) => (auth ? scimTokenActor(auth.tokenId, request) : anonymousActor(request)),
      answered: (c) => noteFailure(deps, c.req.raw, c.res),
    },
    ROUTER_GUARDS,
  );
}
