import type { Deps } from '../../deps';
import type { Method } from '../../http/endpoint';
import { buildSurface, type RouteEntry } from '../../http/router';
import * as auth from '../../auth/fapi-routes';
import * as environment from '../../auth/environment';
import * as orgs from '../../organizations/fapi-routes';
import * as sessions from '../../sessions/fapi-routes';
import * as meSessions from '../../sessions/me-sessions';
import * as signOut from '../../sessions/sign-out-routes';
import type { MeAuth } from '../../users/me';
import * as me from '../../users/me-routes';
import { authenticateFapi, type FapiGuard } from './auth';
import { checkOrigin, fapiCors } from './origin';
import { Hono } from 'hono';

/** Every FAPI path lives under an instance's fapi_url: `{PUBLIC_URL}/fapi/<instance_id>`. */
export const FAPI_PREFIX = '/fapi/:instanceId';

const route = (method: Method, path: string, guard: FapiGuard, ep: RouteEntry<FapiGuard>['endpoint']): RouteEntry<FapiGuard> => ({
  method,
  path: `${FAPI_PREFIX}${path}`,
  guard,
  endpoint: ep,
});

/** Guards: the publishable key (required, or checked when sent), whether the client is resolved, limits, caching. */
const PK_CLIENT: FapiGuard = { key: 'required', client: true };
const CLIENT: FapiGuard = { key: 'optional', client: true };
const SIGN_IN: FapiGuard = { key: 'optional', client: true, limit: 'sign_in' };
const SIGN_UP: FapiGuard = { key: 'optional', client: true, limit: 'sign_up' };
const ATTEMPT: FapiGuard = { key: 'optional', client: true, limit: 'attempt' };
const SEND: FapiGuard = { key: 'optional', client: true, limit: 'verification' };
const PUBLIC: FapiGuard = { key: 'optional', client: false };
const PUBLIC_CACHED: FapiGuard = { key: 'optional', client: false, cache: 'public, max-age=60' };

/**
 * The frontend API, one route a line: method, path under the fapi_url, guard, endpoint.
 * Browsers and native apps call it; it never answers 401 to GET /v1/client.
 */
export const fapiRoutes: RouteEntry<FapiGuard>[] = [
  route('GET',    '/v1/environment',                  CLIENT,        environment.getEnvironmentEndpoint),
  route('GET',    '/v1/client',                       PK_CLIENT,     sessions.getClientEndpoint),
  route('DELETE', '/v1/client',                       CLIENT,        sessions.deleteClientEndpoint),
  route('POST',   '/v1/client/sign_ins',                                SIGN_IN, auth.createSignInEndpoint),
  route('GET',    '/v1/client/sign_ins/:id',                            CLIENT,  auth.getSignInEndpoint),
  route('POST',   '/v1/client/sign_ins/:id/prepare_first_factor',       SEND,    auth.prepareFirstFactorEndpoint),
  route('POST',   '/v1/client/sign_ins/:id/attempt_first_factor',       ATTEMPT, auth.attemptFirstFactorEndpoint),
  route('POST',   '/v1/client/sign_ins/:id/prepare_second_factor',      CLIENT,  auth.prepareSecondFactorEndpoint),
  route('POST',   '/v1/client/sign_ins/:id/attempt_second_factor',      ATTEMPT, auth.attemptSecondFactorEndpoint),
  route('POST',   '/v1/client/sign_ins/:id/reset_password',             ATTEMPT, auth.resetPasswordEndpoint),
  route('POST',   '/v1/client/sign_ups',                                SIGN_UP, auth.createSignUpEndpoint),
  route('GET',    '/v1/client/sign_ups/:id',                            CLIENT,  auth.getSignUpEndpoint),
  route('POST',   '/v1/client/sign_ups/:id/prepare_verification',       SEND,    auth.prepareVerificationEndpoint),
  route('POST',   '/v1/client/sign_ups/:id/attempt_verification',       ATTEMPT, auth.attemptVerificationEndpoint),
  route('POST',   '/v1/client/sessions/:id/tokens',   CLIENT,        sessions.createSessionTokenEndpoint),
  route('POST',   '/v1/client/sessions/:id/end',      CLIENT,        signOut.endSessionEndpoint),
  route('POST',   '/v1/client/sessions/:id/remove',   CLIENT,        signOut.removeSessionEndpoint),
  route('POST',   '/v1/client/sessions/:id/touch',    CLIENT,        signOut.touchSessionEndpoint),
  route('DELETE', '/v1/client/sessions',              CLIENT,        signOut.endAllSessionsEndpoint),
  route('POST',   '/v1/client/me/api_tokens',         CLIENT,        me.createApiTokenEndpoint),
  route('GET',    '/v1/client/me/api_tokens',         CLIENT,        me.listApiTokensEndpoint),
  route('POST',   '/v1/client/me/api_tokens/:id/revoke', CLIENT,     me.revokeApiTokenEndpoint),
  route('GET',    '/v1/me',                           CLIENT,        me.getMeEndpoint),
  route('PATCH',  '/v1/me',                           CLIENT,        me.updateMeEndpoint),
  route('POST',   '/v1/me/totp',                      CLIENT,        me.createTotpEndpoint),
  route('POST',   '/v1/me/totp/attempt_verification', CLIENT,        me.confirmTotpEndpoint),
  route('DELETE', '/v1/me/totp',                      CLIENT,        me.deleteTotpEndpoint),
  route('POST',   '/v1/me/backup_codes',              CLIENT,        me.regenerateBackupCodesEndpoint),
  route('GET',    '/v1/me/sessions',                  CLIENT,        meSessions.listMySessionsEndpoint),
  route('POST',   '/v1/me/sessions/revoke_others',    CLIENT,        meSessions.revokeMyOtherSessionsEndpoint),
  route('POST',   '/v1/me/sessions/:id/revoke',       CLIENT,        meSessions.revokeMySessionEndpoint),
  route('GET',    '/v1/me/organization_memberships',                     CLIENT, orgs.listMyMembershipsEndpoint),
  route('DELETE', '/v1/me/organization_memberships/:id',                 CLIENT, orgs.leaveOrganizationEndpoint),
  route('GET',    '/v1/me/organization_invitations',                     CLIENT, orgs.listMyInvitationsEndpoint),
  route('POST',   '/v1/me/organization_invitations/accept',              CLIENT, orgs.acceptInvitationByTokenEndpoint),
  route('POST',   '/v1/me/organization_invitations/:id/accept',          CLIENT, orgs.acceptMyInvitationEndpoint),
  route('GET',    '/v1/me/organization_suggestions',                     CLIENT, orgs.listMySuggestionsEndpoint),
  route('POST',   '/v1/me/organization_suggestions/:id/accept',          CLIENT, orgs.acceptMySuggestionEndpoint),
  route('POST',   '/v1/organizations',                                   CLIENT, orgs.createOrganizationEndpoint),
  route('GET',    '/v1/organizations/:id',                               CLIENT, orgs.getOrganizationEndpoint),
  route('PATCH',  '/v1/organizations/:id',                               CLIENT, orgs.updateOrganizationEndpoint),
  route('DELETE', '/v1/organizations/:id',                               CLIENT, orgs.deleteOrganizationEndpoint),
  route('GET',    '/v1/organizations/:id/memberships',                   CLIENT, orgs.listMembersEndpoint),
  route('PATCH',  '/v1/organizations/:id/memberships/:user_id',          CLIENT, orgs.updateMemberEndpoint),
  route('DELETE', '/v1/organizations/:id/memberships/:user_id',          CLIENT, orgs.removeMemberEndpoint),
  route('GET',    '/v1/organizations/:id/invitations',                   CLIENT, orgs.listOrgInvitationsEndpoint),
  route('POST',   '/v1/organizations/:id/invitations',                   CLIENT, orgs.inviteEndpoint),
  route('POST',   '/v1/organizations/:id/invitations/:invitation_id/revoke', CLIENT, orgs.revokeOrgInvitationEndpoint),
  route('GET',    '/v1/organizations/:id/domains',                       CLIENT, orgs.listOrgDomainsEndpoint),
  route('POST',   '/v1/organizations/:id/domains',                       CLIENT, orgs.addOrgDomainEndpoint),
  route('PATCH',  '/v1/organizations/:id/domains/:domain_id',             CLIENT, orgs.updateOrgDomainEndpoint),
  route('DELETE', '/v1/organizations/:id/domains/:domain_id',             CLIENT, orgs.deleteOrgDomainEndpoint),
  route('POST',   '/v1/organizations/:id/domains/:domain_id/prepare_verification', CLIENT, orgs.prepareOrgDomainVerificationEndpoint),
  route('POST',   '/v1/organizations/:id/domains/:domain_id/attempt_verification', CLIENT, orgs.attemptOrgDomainVerificationEndpoint),
  route('POST',   '/v1/sessions/:id/refresh',         PUBLIC,        sessions.refreshSessionEndpoint),
  route('GET',    '/.well-known/jwks.json',           PUBLIC_CACHED, sessions.jwksEndpoint),
];

const BEARER_RE = /^Bearer\s+(\S+)$/i;

export function createFapi(deps: Deps) {
  const surface = buildSurface<FapiGuard, MeAuth>(deps, {
    name: 'fapi',
    routes: fapiRoutes,
    acceptsForm: true,
    authenticate: async (c, r) => {
      const auth = await authenticateFapi(deps, c, r.guard);
      // CSRF: one guard for every route that resolves the client (see origin.ts).
      if (r.guard.client) checkOrigin(c, auth.instance, auth.mode);
      return Object.assign(auth, { bearer: BEARER_RE.exec(c.req.header('authorization') ?? '')?.[1] ?? null });
    },
    around: async ({ route: r, deps: d, run }) => {
      const out = await run(d);
      return r.guard.cache ? { ...out, headers: { 'cache-control': r.guard.cache } } : out;
    },
  });
  // CORS for the instance's allowed origins, preflights included, on the FAPI only.
  const app = new Hono().use(`${FAPI_PREFIX}/*`, fapiCors(deps)).route('/', surface);
  // Unmatched paths get the surface's own JSON 404/405.
  app.notFound((c) => surface.fetch(c.req.raw, c.env));
  return app;
}
