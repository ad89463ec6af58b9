import { Hono } from 'hono';
import type { Deps } from '../../deps';
import { oauthProtocol } from '../../http/protocol';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import { type OidcAuth, type OidcGuard } from '../../oauth/oidc-caller';
import { authenticateOidc, oidcActor } from './authenticate';
import * as oidc from './oauth';
import { routeTable, type SameAuth } from '../../http/route-table';
import { tokenGrants } from '../../oauth/token-endpoint';
import { fapiInstanceId } from '../fapi/authenticate';
import { fapiCors } from '../fapi/origin';
import { FAPI_PREFIX as FAPI_BASE } from '../fapi';

const route = routeTable<OidcGuard, OidcAuth, OidcGuard, SameAuth<OidcAuth>, typeof FAPI_BASE>({ prefix: FAPI_BASE });

const PUBLIC: OidcGuard = { kind: 'public', cache: 'public, max-age=60' };
const BROWSER: OidcGuard = { kind: 'browser' };
const RP_POST: OidcGuard = { kind: 'browser', crossSite: true };
const CLIENT: OidcGuard = { kind: 'client' };
const BEARER: OidcGuard = { kind: 'bearer' };

/**
 * The instance's OpenID Provider under its fapi_url (issuer = fapi_url), one route a line.
 * Errors are OAuth's `{error, error_description}` (server/http/protocol.ts, oauthProtocol).
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const oidcRoutes: RouteEntry<OidcGuard, OidcAuth>[] = [
  route('GET',    '/.well-known/openid-configuration',        PUBLIC,  oidc.discovery.getOpenidConfiguration),
  route('GET',    '/.well-known/oauth-authorization-server',  PUBLIC,  oidc.discovery.getAuthorizationServerMetadata),
  route('GET',    '/.well-known/jwks.json',                   PUBLIC,  oidc.discovery.getJwks),
  route('GET',    '/oauth2/authorize',                        BROWSER, oidc.authorizationRequests.authorize),
  route('POST',   '/oauth2/authorize',                        RP_POST, oidc.authorizationRequests.authorizePost),
  route('POST',   '/oauth2/consent',                          BROWSER, oidc.authorizationRequests.consent),
  route('POST',   '/oauth2/token',                            CLIENT,  tokenGrants.issue),
  route('POST',   '/oauth2/register',                         BEARER,  oidc.clientRegistrations.register),
  route('GET',    '/oauth2/register/:clientId',               BEARER,  oidc.clientRegistrations.read),
  route('PUT',    '/oauth2/register/:clientId',               BEARER,  oidc.clientRegistrations.update),
  route('DELETE', '/oauth2/register/:clientId',               BEARER,  oidc.clientRegistrations.delete),
  route('POST',   '/oauth2/device_authorization',             CLIENT,  oidc.deviceAuthorizations.create),
  route('GET',    '/oauth2/device',                           BROWSER, oidc.deviceAuthorizations.verify),
  route('POST',   '/oauth2/device',                           BROWSER, oidc.deviceAuthorizations.verifyPost),
  route('GET',    '/oauth2/userinfo',                         BEARER,  oidc.userinfoRequests.get),
  route('POST',   '/oauth2/userinfo',                         BEARER,  oidc.userinfoRequests.post),
  route('POST',   '/oauth2/revoke',                           CLIENT,  oidc.oauthTokens.revoke),
  route('POST',   '/oauth2/introspect',                       CLIENT,  oidc.oauthTokens.introspect),
  route('GET',    '/oauth2/end_session',                      BROWSER, oidc.endSessionRequests.end),
  route('POST',   '/oauth2/end_session',                      BROWSER, oidc.endSessionRequests.endPost),
];

export function createOidc(deps: Deps) {
  const surface = buildSurface<OidcGuard, OidcAuth>(
    deps,
    {
      name: 'oidc',
      routes: oidcRoutes,
      protocol: oauthProtocol,
      instanceOf: async (c) => fapiInstanceId(c),
      authenticate: (c, r) => authenticateOidc(deps, c, r.guard),
      actorOf: (auth, request) => oidcActor(auth, request),
      around: async ({ route: r, deps: d, run }) => {
        const out = await run(d);
        return r.guard.cache && out.status === 200 ? { ...out, headers: { ...out.headers, 'cache-control': r.guard.cache } } : out;
      },
    },
    ROUTER_GUARDS,
  );
  // Browser apps (SPAs) call discovery, token, userinfo and revocation from the instance's allowed origins.
  const app = new Hono().use(`${FAPI_BASE}/*`, fapiCors(deps)).route('/', surface);
  app.notFound((c) => surface.fetch(c.req.raw, c.env));
  return app;
}
