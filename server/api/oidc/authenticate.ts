import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import { isId } from '../../db/ids';
import { anonymousActor, clientActor, type Actor, type RequestOrigin } from '../../http/actor';
import { notFound } from '../../http/errors';
import { enforceLimit } from '../../limits/rate-limit';
import { clientIp } from '../../http/request-context';
import { servedFapiUrl } from '../../instances/custom-domain';
import { instanceContext } from '../../instances/instances';
import { clientCookieSpec, findClient } from '../../sessions/clients';
import { checkOrigin } from '../fapi/origin';
import { OidcGuard, OidcAuth, tokenLimits } from '../../oauth/oidc-caller';

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
    if (!guard.crossSite) checkOrigin(c, instance, 'web', servedFapiUrl(c.env, deps.config, instance));
  }
  return auth;
}

export const oidcActor = (auth: OidcAuth, request: RequestOrigin): Actor =>
  auth.client ? clientActor(auth.client.id, request) : anonymousActor(request);
