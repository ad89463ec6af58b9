import type { Deps } from '../../deps';
import { anonymousActor, portalActor } from '../../http/actor';
import { jsonProtocol } from '../../http/protocol';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import { routeTable, type GuardAuth } from '../../http/route-table';
import { fapiInstanceId } from '../fapi/authenticate';
import { FAPI_PREFIX } from '../fapi';
import { authenticatePortal, type PortalAuth, type PortalGuard, type PortalSessionAuth } from './authenticate';
import * as portal from './portal';

interface PortalAuthUnder extends GuardAuth {
  readonly auth: this['guard'] extends { open: true } ? PortalAuth : PortalSessionAuth;
}
const route = routeTable<PortalGuard, PortalAuth, PortalGuard, PortalAuthUnder, typeof FAPI_PREFIX>({ prefix: FAPI_PREFIX });

/** Guards: the link's exchange, any session, or sessions of these intents (domains serve the SSO and directory setups too). */
const OPEN = { open: true } as const;
const ANY = { intents: 'any' } as const;
const DOMAINS = { intents: ['domain_verification', 'sso', 'dsync'] } as const;
const SSO = { intents: ['sso'] } as const;
const ROLES = { intents: ['sso', 'dsync'] } as const;
const DSYNC = { intents: ['dsync'] } as const;
const AUDIT = { intents: ['audit_logs'] } as const;

/**
 * The admin portal's API under each fapi_url (issue 49), one route a line. Same-origin calls of
 * the portal pages, authenticated by the `__portal` cookie; writes need the fapi_url's Origin.
 */
export const portalRoutes: RouteEntry<PortalGuard, PortalAuth>[] = [
  route('POST', '/v1/portal/session', OPEN, portal.portalSessions.open),
  route('GET', '/v1/portal/session', ANY, portal.portalSessions.get),
  route('DELETE', '/v1/portal/session', ANY, portal.portalSessions.end),
  route('GET', '/v1/portal/domains', DOMAINS, portal.portalDomains.list),
  route('POST', '/v1/portal/domains', DOMAINS, portal.portalDomains.create),
  route('POST', '/v1/portal/domains/:domain_id/verify', DOMAINS, portal.portalDomains.verify),
  route('DELETE', '/v1/portal/domains/:domain_id', DOMAINS, portal.portalDomains.delete),
  route('GET', '/v1/portal/roles', ROLES, portal.portalRoles.list),
  route('GET', '/v1/portal/sso_connections', SSO, portal.portalSso.list),
  route('POST', '/v1/portal/sso_connections', SSO, portal.portalSso.create),
  route('GET', '/v1/portal/sso_connections/:connection_id', SSO, portal.portalSso.get),
  route('PATCH', '/v1/portal/sso_connections/:connection_id', SSO, portal.portalSso.update),
  route('DELETE', '/v1/portal/sso_connections/:connection_id', SSO, portal.portalSso.delete),
  route('POST', '/v1/portal/sso_connections/:connection_id/tests', SSO, portal.portalSso.startTest),
  route('GET', '/v1/portal/sso_connections/:connection_id/tests/:test_id', SSO, portal.portalSso.getTest),
  route('POST', '/v1/portal/sso_connections/:connection_id/activate', SSO, portal.portalSso.activate),
  route('POST', '/v1/portal/sso_connections/:connection_id/deactivate', SSO, portal.portalSso.deactivate),
  route('GET', '/v1/portal/directory', DSYNC, portal.portalDirectory.status),
  route('POST', '/v1/portal/directory/tokens', DSYNC, portal.portalDirectory.createToken),
  route('POST', '/v1/portal/directory/tokens/:token_id/rotate', DSYNC, portal.portalDirectory.rotateToken),
  route('POST', '/v1/portal/directory/tokens/:token_id/revoke', DSYNC, portal.portalDirectory.revokeToken),
  route('GET', '/v1/portal/directory/groups', DSYNC, portal.portalDirectory.groups),
  route('PATCH', '/v1/portal/directory/groups/:group_id', DSYNC, portal.portalDirectory.mapGroup),
  route('GET', '/v1/portal/audit_logs', AUDIT, portal.portalAuditLogs.list),
  route('GET', '/v1/portal/audit_logs/export', AUDIT, portal.portalAuditLogs.export),
];

export function createPortal(deps: Deps) {
  return buildSurface<PortalGuard, PortalAuth>(
    deps,
    {
      name: 'portal',
      routes: portalRoutes,
      protocol: jsonProtocol(),
      instanceOf: async (c) => fapiInstanceId(c),
      authenticate: (c, r) => authenticatePortal(deps, c, r.guard),
      actorOf: (auth, request) => (auth.link ? portalActor(auth.link.id, request) : anonymousActor(request)),
    },
    ROUTER_GUARDS,
  );
}
