import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../deps';
import { isId } from '../db/ids';
import { anonymousActor, clientActor, type Actor, type RequestOrigin } from '../http/actor';
import { notFound } from '../http/errors';
import type { LimitRule } from '../infra/limiter';
import { enforceLimit } from '../limits/rate-limit';
import { clientIp } from '../http/request-context';
import { servedFapiUrl } from '../instances/custom-domain';
import { instanceContext, type InstanceContext } from '../instances/instances';
import { clientCookieSpec, findClient, type ClientRow } from '../sessions/clients';
import { checkOrigin } from '../api/fapi/origin';

/**
 * Guards of the OIDC surface. `public`: discovery and keys (cacheable). `browser`: the
 * authorization endpoint, consent and logout, which recognise the signed-in browser by the
 * FAPI `__client` cookie (scoped to the fapi_url path, so it reaches /oauth2/… too) and
 * refuse foreign-origin posts like the FAPI. `client`: token, revocation, introspection —
 * the client authenticates in the handler (its credentials may be in the body) and the
 * caller's IP is rate-limited. `bearer`: userinfo.
 */
export interface OidcGuard {
  kind: 'public' | 'browser' | 'client' | 'bearer';
  cache?: string;
}

export interface OidcAuth {
  instance: InstanceContext;
  /** The Authorization header as sent (client_secret_basic, or a bearer access token). */
  authorization: string | undefined;
  /** The signed-in browser's FAPI client (browser routes), or null. */
  client: ClientRow | null;
  /** Cookies this answer must set (a stale client cookie is cleared). */
  cookie(name: string): string | undefined;
}

/** The token endpoint's budgets; OAUTH_TOKEN_RATE_LIMIT (per 10 s) raises or lowers both. */
export const tokenLimits = (deps: Pick<Deps, 'config'>) => {
  const configured = deps.config.OAUTH_TOKEN_RATE_LIMIT;
  return {
    perIp: { name: 'oauth_token_ip', limit: configured ?? 300, windowMs: 10_000 } satisfies LimitRule,
    perClient: { name: 'oauth_token_client', limit: configured ?? 1000, windowMs: 10_000 } satisfies LimitRule,
  };
};

export async function authenticateOidc(deps: Deps, c: Context, guard: OidcGuard): Promise<OidcAuth> {
  const instanceId = c.req.param('instanceId');
  if (!instanceId || !isId('ins', instanceId)) throw notFound('instance');
  const instance = await instanceContext(deps, instanceId);
  const auth: OidcAuth = { instance, authorization: c.req.header('authorization'), client: null, cookie: (name) => getCookie(c, name) };
  if (guard.kind === 'client') {
    const ip = clientIp(c, deps.config);
    if (ip) await enforceLimit(deps, 'oidc', tokenLimits(deps).perIp, `${instance.id}:${ip}`);
  }
  if (guard.kind === 'browser') {
    const token = getCookie(c, clientCookieSpec(instance).name);
    if (token) auth.client = (await findClient(deps, instance, token)).client;
    // A consent or logout form posted from another origin is refused (CSRF), as on the FAPI.
    checkOrigin(c, instance, 'web', servedFapiUrl(c.env, deps.config, instance));
  }
  return auth;
}

export const oidcActor = (auth: OidcAuth, request: RequestOrigin): Actor =>
  auth.client ? clientActor(auth.client.id, request) : anonymousActor(request);
