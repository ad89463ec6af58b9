import type { Deps } from '../../deps';
import { anonymousActor } from '../../http/actor';
import { notFound } from '../../http/errors';
import { htmlProtocol } from '../../http/protocol';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import { routeTable, type SameAuth } from '../../http/route-table';
import { servedFapiUrl } from '../../instances/custom-domain';
import { instanceContext } from '../../instances/instances';
import { enforceIpBudget } from '../../limits/policy';
import { fapiInstanceId } from '../fapi/authenticate';
import { ssoSurface as sso, type SsoAuth } from './sso';
import { FAPI_PREFIX } from '../fapi';

type SsoGuard = 'idp';

const route = routeTable<SsoGuard, SsoAuth, SsoGuard, SameAuth<SsoAuth>, typeof FAPI_PREFIX>({ prefix: FAPI_PREFIX });
/** The identity provider's browser, cross-site (see below). */
const IDP: SsoGuard = 'idp';

/**
 * Enterprise SSO under each fapi_url, one route a line. The IdP's browser posts and
 * redirects land here cross-site, so there is no FAPI origin check and no client cookie:
 * InResponseTo (SAML) or state with PKCE and nonce (OIDC) bind a response to the sign-in
 * that asked for it. Errors are an HTML page (htmlProtocol).
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const ssoRoutes: RouteEntry<SsoGuard, SsoAuth>[] = [
  route('GET',  '/sso/saml/:connection_id/metadata', IDP, sso.samlMetadata),
  route('GET',  '/sso/saml/:connection_id/requests/:request_id', IDP, sso.samlRequestForm),
  route('POST', '/sso/saml/:connection_id/acs',      IDP, sso.samlAcs),
  route('GET',  '/sso/oidc/:connection_id/callback', IDP, sso.oidcCallback),
];

export function createSso(deps: Deps) {
  return buildSurface<SsoGuard, SsoAuth>(
    deps,
    {
      name: 'sso',
      routes: ssoRoutes,
      protocol: htmlProtocol,
      instanceOf: async (c) => fapiInstanceId(c),
      authenticate: async (c) => {
        const id = fapiInstanceId(c);
        if (!id) throw notFound('instance');
        const instance = await instanceContext(deps, id);
        await enforceIpBudget(deps, c, 'sso', instance, 'federation_per_ip');
        return { instance, servedUrl: servedFapiUrl(c.env, deps.config, instance) };
      },
      actorOf: (_auth, request) => anonymousActor(request),
    },
    ROUTER_GUARDS,
  );
}
