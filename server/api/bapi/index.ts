import { z } from 'zod';
import type { Deps } from '../../deps';
import { bapiAuditLogs as auditLogs } from './audit';
import { bapiMessages as messages } from './email';
import { eventTypes } from './events';
import { endpoint } from '../../http/endpoint';
import { runIdempotent } from '../../http/idempotency';
import { buildOpenApi } from '../../http/openapi';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import { routeTable, type GuardAuth } from '../../http/route-table';
import { anonymousActor, secretKeyActor } from '../../http/actor';
import { jsonProtocol } from '../../http/protocol';
import { ANY_KEY, authenticateSecretKey, bapiInstanceId, authorizeSecretKey, NO_KEY, type BapiAuth, type BapiGuard } from './authenticate';
import { bapiSessions as sessions } from './sessions';
import * as tickets from './sessions';
import * as signing from './signing';
import { bapiOrganizations as orgs, bapiPortalLink } from './organizations';
import { bapiUsers as users } from './users';
import { bapiProfileImage } from './users';
import { bapiWebhooks as webhooks } from './webhooks';
import { bapiLimits as limits } from './limits';
import { bapiScim as scim } from './scim';
import { bapiProtection as protection } from './protection';
import { bapiOauthApplications as oauthApps } from './oauth';
import { bapiApiKeys as apiKeys } from './apikeys';
import { bapiBilling as billing } from './billing';
import { bapiSms as sms } from './sms';
import { bapiLtiPlatforms as ltiPlatforms } from './lti';
import { bapiWaitlist as waitlist } from './waitlist';
import { bapiSocialProviders as social } from './social';
import { bapiSso as sso } from './sso';
import { bapiClerkDialect, bapiClerkLine as clerkLine, checkExpiredToken, REFRESH_FIELDS, type BapiClerkLine } from './clerk/dialect';
import { dialectLayer } from '../../http/dialect';
import * as clerk from './clerk/endpoints';
import { clerkInstance } from './clerk/instance';
import { bapiInvitations as invitations } from './invitations';
import { bapiAllowlist as allowlist } from './allowlist';
import { bapiJwtTemplates as jwtTemplates } from './jwt-templates';
import { bapiPasskeys as passkeys } from './passkeys';

type BapiRoute = RouteEntry<BapiGuard, BapiAuth | null>;

/** A public route's handler gets no key (null); every other one the key's auth. */
interface BapiAuthUnder extends GuardAuth {
  readonly auth: this['guard'] extends typeof NO_KEY ? BapiAuth | null : BapiAuth;
}
/** A guard is written as its one scope, or in full. */
const route = routeTable<BapiGuard, BapiAuth | null, BapiGuard['scope'] | BapiGuard, BapiAuthUnder>({
  guard: (g) => (typeof g === 'string' ? { scope: g } : g),
});

/** Minting a session with an `actor` is impersonation. */
const MINT_SESSION: BapiGuard = {
  scope: 'sessions:write',
  also: { scope: 'impersonation:write', when: (body) => (body as { actor?: unknown }).actor !== undefined },
};

const openApiEndpoint = endpoint<BapiAuth | null>({
  summary: 'This OpenAPI 3.1 document',
  response: z.record(z.string(), z.unknown()),
  handle: async ({ deps }) => bapiOpenApi(deps.config.PUBLIC_URL),
});

/**
 * The backend API, one route a line: method, path, the one scope it requires, endpoint.
 * PUBLIC needs no key; ANY_KEY needs a valid key but no scope and is not rate limited.
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const bapiRoutes: BapiRoute[] = [
  route('GET',    '/v1/openapi.json',             NO_KEY,            openApiEndpoint),
  route('GET',    '/v1/jwks',                     ANY_KEY,           signing.jwks.get),
  route('POST',   '/v1/jwks/rotate',              'jwks:write',      signing.jwks.rotate),

  route('POST',   '/v1/users',                    'users:write',     users.create),
  route('GET',    '/v1/users',                    'users:read',      users.list),
  route('GET',    '/v1/users/count',              'users:read',      clerk.clerkUsers.count),
  route('GET',    '/v1/users/:id',                'users:read',      users.get),
  route('PATCH',  '/v1/users/:id',                'users:write',     users.update),
  route('PATCH',  '/v1/users/:id/metadata',       'users:write',     clerk.clerkUsers.updateMetadata),
  route('DELETE', '/v1/users/:id',                'users:write',     users.delete),
  route('POST',   '/v1/users/:id/ban',            'users:write',     users.ban),
  route('POST',   '/v1/users/:id/unban',          'users:write',     users.unban),
  route('POST',   '/v1/users/:id/profile_image',  'users:write',     bapiProfileImage.set),
  route('DELETE', '/v1/users/:id/profile_image',  'users:write',     bapiProfileImage.remove),
  route('DELETE', '/v1/users/:id/mfa',            'users:write',     users.disableMfa),
  route('GET',    '/v1/users/:id/passkeys',       'users:read',      passkeys.list),
  route('DELETE', '/v1/users/:id/passkeys/:passkey_id', 'users:write', passkeys.remove),
  route('GET',    '/v1/users/:id/sessions',       'sessions:read',   users.listSessions),
  route('GET',    '/v1/users/:id/organization_memberships', 'organizations:read', orgs.listUserMemberships),
  route('POST',   '/v1/users/:id/sessions/revoke','sessions:write',  sessions.revokeOfUser),

  route('POST',   '/v1/sessions',                 MINT_SESSION,      sessions.mint),
  route('GET',    '/v1/sessions',                 'sessions:read',   sessions.list),
  route('POST',   '/v1/sessions/verify',          'sessions:read',   sessions.verify),
  route('GET',    '/v1/sessions/:id',             'sessions:read',   sessions.get),
  route('POST',   '/v1/sessions/:id/revoke',      'sessions:write',  sessions.revoke),
  route('POST',   '/v1/sessions/:id/verify',      'sessions:read',   clerk.clerkSessions.verify),
  route('POST',   '/v1/sessions/:id/tokens',      'sessions:write',  clerk.clerkSessions.createToken),
  route('POST',   '/v1/sessions/:id/tokens/:template', 'sessions:write', clerk.clerkSessions.createTemplateToken),
  route('GET',    '/v1/jwt_templates',            'jwt_templates:read',  jwtTemplates.list),
  route('POST',   '/v1/jwt_templates',            'jwt_templates:write', jwtTemplates.create),
  route('GET',    '/v1/jwt_templates/:id',        'jwt_templates:read',  jwtTemplates.get),
  route('PATCH',  '/v1/jwt_templates/:id',        'jwt_templates:write', jwtTemplates.update),
  route('DELETE', '/v1/jwt_templates/:id',        'jwt_templates:write', jwtTemplates.delete),
  route('POST',   '/v1/sessions/:id/refresh',     'sessions:write',  sessions.refresh),

  route('POST',   '/v1/invitations',              'invitations:write', invitations.create),
  route('GET',    '/v1/invitations',              'invitations:read',  invitations.list),
  route('POST',   '/v1/invitations/:id/revoke',   'invitations:write', invitations.revoke),
  route('GET',    '/v1/instance',                 'instance:read',     clerkInstance.get),
  route('PATCH',  '/v1/instance',                 'instance:write',    clerkInstance.update),
  route('PATCH',  '/v1/instance/restrictions',    'instance:write',    clerkInstance.updateRestrictions),
  route('GET',    '/v1/instance/organization_settings', 'instance:read',  clerkInstance.getOrganizationSettings),
  route('PATCH',  '/v1/instance/organization_settings', 'instance:write', clerkInstance.updateOrganizationSettings),
  route('GET',    '/v1/allowlist_identifiers',    'allowlist:read',    allowlist.list),
  route('POST',   '/v1/allowlist_identifiers',    'allowlist:write',   allowlist.create),
  route('DELETE', '/v1/allowlist_identifiers/:id','allowlist:write',   allowlist.delete),

  route('POST',   '/v1/actor_tokens',             'impersonation:write',  tickets.actorTokens.create),
  route('POST',   '/v1/actor_tokens/:id/revoke',  'impersonation:write',  tickets.actorTokens.revoke),
  route('POST',   '/v1/sign_in_tokens',           'sign_in_tokens:write', tickets.signInTokens.create),
  route('POST',   '/v1/sign_in_tokens/:id/revoke','sign_in_tokens:write', tickets.signInTokens.revoke),

  route('POST',   '/v1/organizations',                                   'organizations:write', orgs.createOrganization),
  route('GET',    '/v1/organizations',                                   'organizations:read',  orgs.listOrganizations),
  route('GET',    '/v1/organizations/:id',                               'organizations:read',  orgs.getOrganization),
  route('PATCH',  '/v1/organizations/:id',                               'organizations:write', orgs.updateOrganization),
  route('PATCH',  '/v1/organizations/:id/metadata',                      'organizations:write', clerk.clerkOrganizations.updateMetadata),
  route('DELETE', '/v1/organizations/:id',                               'organizations:write', orgs.deleteOrganization),
  route('PUT',    '/v1/organizations/:id/logo',                          'organizations:write', orgs.setLogo),
  route('DELETE', '/v1/organizations/:id/logo',                          'organizations:write', orgs.deleteLogo),
  route('POST',   '/v1/organizations/:id/memberships',                   'organizations:write', orgs.createMembership),
  route('GET',    '/v1/organizations/:id/memberships',                   'organizations:read',  orgs.listMemberships),
  route('PATCH',  '/v1/organizations/:id/memberships/:user_id',          'organizations:write', orgs.updateMembership),
  route('DELETE', '/v1/organizations/:id/memberships/:user_id',          'organizations:write', orgs.deleteMembership),
  route('POST',   '/v1/organizations/:id/invitations',                   'organizations:write', orgs.createInvitation),
  route('POST',   '/v1/organizations/:id/invitations/bulk',              'organizations:write', orgs.bulkCreateInvitations),
  route('GET',    '/v1/organizations/:id/invitations',                   'organizations:read',  orgs.listInvitations),
  route('GET',    '/v1/organizations/:id/invitations/:invitation_id',    'organizations:read',  orgs.getInvitation),
  route('POST',   '/v1/organizations/:id/invitations/:invitation_id/revoke', 'organizations:write', orgs.revokeInvitation),
  route('GET',    '/v1/organizations/:id/membership_requests',           'organizations:read',  orgs.listMembershipRequests),
  route('POST',   '/v1/organizations/:id/membership_requests/:request_id/accept', 'organizations:write', orgs.acceptMembershipRequest),
  route('POST',   '/v1/organizations/:id/membership_requests/:request_id/reject', 'organizations:write', orgs.rejectMembershipRequest),
  route('POST',   '/v1/organizations/:id/domains',                       'organizations:write', orgs.createDomain),
  route('GET',    '/v1/organizations/:id/domains',                       'organizations:read',  orgs.listDomains),
  route('GET',    '/v1/organizations/:id/domains/:domain_id',            'organizations:read',  orgs.getDomain),
  route('PATCH',  '/v1/organizations/:id/domains/:domain_id',            'organizations:write', orgs.updateDomain),
  route('DELETE', '/v1/organizations/:id/domains/:domain_id',            'organizations:write', orgs.deleteDomain),
  route('POST',   '/v1/organizations/:id/domains/:domain_id/prepare_verification', 'organizations:write', orgs.prepareDomainVerification),
  route('POST',   '/v1/organizations/:id/domains/:domain_id/attempt_verification', 'organizations:write', orgs.attemptDomainVerification),
  route('POST',   '/v1/organizations/:id/portal_links',                  'organizations:write', bapiPortalLink),

  route('GET',    '/v1/roles',                    'roles:read',      orgs.listRoles),
  route('POST',   '/v1/roles',                    'roles:write',     orgs.createRole),
  route('GET',    '/v1/roles/:id',                'roles:read',      orgs.getRole),
  route('PATCH',  '/v1/roles/:id',                'roles:write',     orgs.updateRole),
  route('DELETE', '/v1/roles/:id',                'roles:write',     orgs.deleteRole),
  route('GET',    '/v1/permissions',              'roles:read',      orgs.listPermissions),
  route('POST',   '/v1/permissions',              'roles:write',     orgs.createPermission),
  route('GET',    '/v1/permissions/:id',          'roles:read',      orgs.getPermission),
  route('PATCH',  '/v1/permissions/:id',          'roles:write',     orgs.updatePermission),
  route('DELETE', '/v1/permissions/:id',          'roles:write',     orgs.deletePermission),

  route('GET',    '/v1/events',                   'events:read',     eventTypes.list),

  route('POST',   '/v1/webhook_endpoints',                  'webhooks:write', webhooks.create),
  route('GET',    '/v1/webhook_endpoints',                  'webhooks:read',  webhooks.list),
  route('GET',    '/v1/webhook_endpoints/:id',              'webhooks:read',  webhooks.get),
  route('PATCH',  '/v1/webhook_endpoints/:id',              'webhooks:write', webhooks.update),
  route('DELETE', '/v1/webhook_endpoints/:id',              'webhooks:write', webhooks.delete),
  route('GET',    '/v1/webhook_endpoints/:id/secret',       'webhooks:write', webhooks.revealSecret),
  route('POST',   '/v1/webhook_endpoints/:id/secret/rotate','webhooks:write', webhooks.rotateSecret),
  route('POST',   '/v1/webhook_endpoints/:id/test',         'webhooks:write', webhooks.test),
  route('GET',    '/v1/webhook_endpoints/:id/deliveries',   'webhooks:read',  webhooks.deliveries),
  route('POST',   '/v1/webhook_endpoints/:id/deliveries/:message_id/retry', 'webhooks:write', webhooks.retry),
  route('POST',   '/v1/webhook_endpoints/:id/recover',      'webhooks:write', webhooks.recover),

  route('POST',   '/v1/oauth_applications',                   'oauth_applications:write', oauthApps.create),
  route('GET',    '/v1/oauth_applications',                   'oauth_applications:read',  oauthApps.list),
  route('GET',    '/v1/oauth_applications/:id',               'oauth_applications:read',  oauthApps.get),
  route('PATCH',  '/v1/oauth_applications/:id',               'oauth_applications:write', oauthApps.update),
  route('DELETE', '/v1/oauth_applications/:id',               'oauth_applications:write', oauthApps.delete),
  route('POST',   '/v1/oauth_applications/:id/rotate_secret', 'oauth_applications:write', oauthApps.rotateSecret),
  route('GET',    '/v1/oauth_applications/:id/logout_deliveries', 'oauth_applications:read', oauthApps.logoutDeliveries),

  route('POST',   '/v1/lti_platforms',                        'lti:write', ltiPlatforms.create),
  route('GET',    '/v1/lti_platforms',                        'lti:read',  ltiPlatforms.list),
  route('GET',    '/v1/lti_platforms/:id',                    'lti:read',  ltiPlatforms.get),
  route('PATCH',  '/v1/lti_platforms/:id',                    'lti:write', ltiPlatforms.update),
  route('DELETE', '/v1/lti_platforms/:id',                    'lti:write', ltiPlatforms.delete),

  route('GET',    '/v1/audit_logs',               'audit_logs:read', auditLogs.list),

  route('POST',   '/v1/scim_tokens',              'scim_tokens:write', scim.createToken),
  route('GET',    '/v1/scim_tokens',              'scim_tokens:read',  scim.listTokens),
  route('POST',   '/v1/scim_tokens/:id/revoke',   'scim_tokens:write', scim.revokeToken),
  route('GET',    '/v1/scim_users',               'scim_tokens:read',  scim.listUsers),
  route('GET',    '/v1/scim_groups',              'scim_tokens:read',  scim.listGroups),
  route('PATCH',  '/v1/scim_groups/:id',          'scim_tokens:write', scim.mapGroup),

  route('POST',   '/v1/sso_connections',          'sso_connections:write', sso.create),
  route('GET',    '/v1/sso_connections',          'sso_connections:read',  sso.list),
  route('GET',    '/v1/sso_connections/:id',      'sso_connections:read',  sso.get),
  route('PATCH',  '/v1/sso_connections/:id',      'sso_connections:write', sso.update),
  route('DELETE', '/v1/sso_connections/:id',      'sso_connections:write', sso.delete),

  route('GET',    '/v1/emails',                   'emails:read',     messages.listEmails),
  route('GET',    '/v1/emails/:id',               'emails:read',     messages.getEmail),
  route('GET',    '/v1/sms',                      'sms:read',        messages.listSms),
  route('GET',    '/v1/sms/:id',                  'sms:read',        messages.getSms),
  route('GET',    '/v1/sms_settings',             'sms:read',        sms.getSettings),
  route('PATCH',  '/v1/sms_settings',             'sms:write',       sms.updateSettings),
  route('POST',   '/v1/sms_settings/test_send',   'sms:write',       sms.testSend),
  route('POST',   '/v1/sms_callbacks/twilio/:instance_id', NO_KEY,   sms.twilioStatusCallback),

  route('GET',    '/v1/rate_limit_policy',        'rate_limit:read',    limits.getPolicy),
  route('PATCH',  '/v1/rate_limit_policy',        'rate_limit:write',   limits.updatePolicy),
  route('GET',    '/v1/network_acls',             'network_acls:read',  limits.listAcls),
  route('POST',   '/v1/network_acls',             'network_acls:write', limits.createAcl),
  route('GET',    '/v1/network_acls/:id',         'network_acls:read',  limits.getAcl),
  route('PATCH',  '/v1/network_acls/:id',         'network_acls:write', limits.updateAcl),
  route('DELETE', '/v1/network_acls/:id',         'network_acls:write', limits.deleteAcl),
  route('GET',    '/v1/attack_protection',        'attack_protection:read',  protection.getAttackProtection),
  route('PATCH',  '/v1/attack_protection',        'attack_protection:write', protection.updateAttackProtection),
  route('GET',    '/v1/risk_based_mfa',           'risk_based_mfa:read',     protection.getRiskBasedMfa),
  route('PATCH',  '/v1/risk_based_mfa',           'risk_based_mfa:write',    protection.updateRiskBasedMfa),
  route('POST',   '/v1/users/:id/lock',           'users:write',             protection.lockUser),
  route('POST',   '/v1/users/:id/unlock',         'users:write',             protection.unlockUser),
  route('GET',    '/v1/social_providers',         'sso:read',        social.list),
  route('POST',   '/v1/social_providers',         'sso:write',       social.create),
  route('GET',    '/v1/social_providers/:id',     'sso:read',        social.get),
  route('PATCH',  '/v1/social_providers/:id',     'sso:write',       social.update),
  route('DELETE', '/v1/social_providers/:id',     'sso:write',       social.delete),

  route('POST',   '/v1/api_keys',                 'api_keys:write',  apiKeys.create),
  route('GET',    '/v1/api_keys',                 'api_keys:read',   apiKeys.list),
  route('POST',   '/v1/api_keys/verify',          'api_keys:read',   apiKeys.verify),
  route('GET',    '/v1/api_keys/:id',             'api_keys:read',   apiKeys.get),
  route('PATCH',  '/v1/api_keys/:id',             'api_keys:write',  apiKeys.update),
  route('POST',   '/v1/api_keys/:id/revoke',      'api_keys:write',  apiKeys.revoke),

  route('POST',   '/v1/billing/plans',            'billing:write',   billing.createPlan),
  route('GET',    '/v1/billing/plans',            'billing:read',    billing.listPlans),
  route('GET',    '/v1/billing/plans/:id',        'billing:read',    billing.getPlan),
  route('PATCH',  '/v1/billing/plans/:id',        'billing:write',   billing.updatePlan),
  route('DELETE', '/v1/billing/plans/:id',        'billing:write',   billing.deletePlan),
  route('GET',    '/v1/billing/settings',         'billing:read',    billing.getSettings),
  route('PATCH',  '/v1/billing/settings',         'billing:write',   billing.updateSettings),
  route('GET',    '/v1/subscriptions',            'billing:read',    billing.listSubscriptions),
  route('POST',   '/v1/billing/webhooks/stripe/:instance_id', NO_KEY, billing.stripeWebhook),
  route('GET',    '/v1/waitlist_entries',             'waitlist:read',   waitlist.list),
  route('POST',   '/v1/waitlist_entries',             'waitlist:write',  waitlist.create),
  route('GET',    '/v1/waitlist_entries/:id',         'waitlist:read',   waitlist.get),
  route('POST',   '/v1/waitlist_entries/:id/invite',  'waitlist:write',  waitlist.invite),
  route('POST',   '/v1/waitlist_entries/:id/reject',  'waitlist:write',  waitlist.reject),
];

/**
 * Clerk's dialect of this API (`@clerk/backend`, under the Clerk-API-Version header;
 * server/api/bapi/clerk/dialect.ts), one line per path the SDK calls that the route table does
 * not answer as it is; every other path it calls is the route's own. A `list` answers Clerk's
 * page of the whole list (`offset`, `{data, total_count}`; `bare`: a plain array unless
 * `paginated`).
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const bapiClerkLines: BapiClerkLine[] = [
  clerkLine('GET',  '/v1/users',                                { list: { bare: true } }),
  clerkLine('GET',  '/v1/users/:id/sessions',                   { list: {} }),
  clerkLine('GET',  '/v1/users/:id/organization_memberships',   { list: {} }),
  clerkLine('GET',  '/v1/sessions',                             { list: {} }),
  clerkLine('GET',  '/v1/jwt_templates',                        { list: { bare: true } }),
  clerkLine('GET',  '/v1/invitations',                          { list: {} }),
  clerkLine('GET',  '/v1/allowlist_identifiers',                { list: {} }),
  clerkLine('GET',  '/v1/organizations',                        { list: {} }),
  clerkLine('GET',  '/v1/organizations/:id/memberships',        { list: {} }),
  clerkLine('GET',  '/v1/organizations/:id/invitations',        { list: {} }),
  // sessions.refreshSession: the session token the SDK holds must be one of this session's.
  clerkLine('POST', '/v1/sessions/:id/refresh',                 { takes: REFRESH_FIELDS, around: checkExpiredToken }),
];

export function bapiOpenApi(publicUrl: string) {
  return buildOpenApi({
    title: 'Latchkey backend API',
    version: '1',
    serverUrl: publicUrl,
    routes: bapiRoutes,
    describeGuard: (g) =>
      g.scope === NO_KEY ? { security: false } : g.scope === ANY_KEY ? { security: true } : { security: true, scope: g.scope },
  });
}

export function createBapi(deps: Deps) {
  return buildSurface<BapiGuard, BapiAuth | null>(
    deps,
    {
      name: 'bapi',
      routes: bapiRoutes,
      protocol: jsonProtocol(),
      // Clerk's dialect, only for requests carrying the Clerk-API-Version header (bapiClerkLines above).
      dialect: dialectLayer(bapiClerkDialect(bapiClerkLines, bapiRoutes)),
      instanceOf: (c) => bapiInstanceId(deps, c),
      authenticate: (c, r) => authenticateSecretKey(deps, c, r.guard),
      actorOf: (auth, request) => (auth ? secretKeyActor(auth.keyId, request) : anonymousActor(request)),
      authorize: (auth, r, { body }) => authorizeSecretKey(auth, r.guard, body),
      // Every BAPI POST honours Idempotency-Key; a record replays only to the key that made it.
      around: ({ c, route: r, auth, rawBody, deps: d, run }) => {
        const key = c.req.header('idempotency-key');
        if (r.method !== 'POST' || key === undefined || !auth) return run(d);
        return runIdempotent(
          d,
          { instanceId: auth.instance.id, credentialId: auth.keyId, key, method: r.method, path: c.req.path, rawBody },
          run,
        );
      },
    },
    ROUTER_GUARDS,
  );
}
