import type { Deps } from '../../deps';
import { anonymousActor, operatorActor } from '../../http/actor';
import { jsonProtocol } from '../../http/protocol';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import { routeTable, type SameAuth } from '../../http/route-table';
import { buildOpenApi } from '../../http/openapi';
import { ADMIN, authenticateConsole, OPERATOR, OWNER, PUBLIC, VIEWER, type ConsoleAuth, type ConsoleGuard } from './authenticate';
import * as dash from './operators';
import * as l10n from './localization';
import { dashboardWebhooks as webhooks } from './webhooks';
import { dashboardOauthApplications as oauthApps, dashboardOauthInitialAccessTokens as oauthIats } from './oauth';
import { dashboardOrganizations as orgs, dashboardPortalLink } from './organizations';
import { dashboardAuditLogs as auditLogs } from './audit';
import { people } from './people';
import { branding } from './instances';
import { sessionTokens } from './sessions';
import { dashboardMessages as messages } from './email';
import { dashboardSessions as sessions } from './sessions';
import { dashboardUserAccount as account, dashboardUsers as users, userExport } from './users';
import { dashboardProfileImage } from './users';
import { dashboardLimits as limits } from './limits';
import { dashboardSocialProviders as social } from './social';
import { dashboardScim as scim } from './scim';
import { dashboardProtection as protection } from './protection';
import { dashboardApiKeys as apiKeys } from './apikeys';
import { metrics } from './analytics';
import { dashboardBilling as billing } from './billing';
import { dashboardSms as sms } from './sms';
import { dashboardLtiPlatforms as ltiPlatforms } from './lti';
import { dashboardJwtTemplates as jwtTemplates } from './jwt-templates';
import { dashboardWaitlist as waitlist } from './waitlist';
import { dashboardSso as sso } from './sso';
import { dashboardPasskeys as passkeys } from './passkeys';

/** The dashboard API: the console's data calls, under `{PUBLIC_URL}/v1/dashboard`. */
const DASHBOARD_PREFIX = '/v1/dashboard';
const ACCOUNT = '/accounts/:accountId';
const INSTANCE = `${ACCOUNT}/instances/:instanceId`;
const ORG = `${INSTANCE}/organizations/:id`;

const route = routeTable<ConsoleGuard, ConsoleAuth, ConsoleGuard, SameAuth<ConsoleAuth>, typeof DASHBOARD_PREFIX>({
  prefix: DASHBOARD_PREFIX,
});

/**
 * One route a line: method, path under /v1/dashboard, guard, endpoint. Guards
 * (api/dashboard/authenticate.ts): PUBLIC needs no session; OPERATOR a console session;
 * VIEWER / ADMIN / OWNER that role (or higher) in `:accountId`. Another account's ids are
 * 404; too low a role 403; every write needs the console's Origin (CSRF).
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const dashboardRoutes: RouteEntry<ConsoleGuard, ConsoleAuth>[] = [
  route('GET',    '/console',                                    PUBLIC,   dash.operatorConsole.info),
  route('POST',   '/setup',                                      PUBLIC,   dash.operatorConsole.setup),
  route('POST',   '/invitations/accept',                         PUBLIC,   dash.operatorConsole.acceptInvitation),

  route('GET',    '/me',                                         OPERATOR, dash.operatorConsole.getMe),
  route('POST',   '/accounts',                                   OPERATOR, dash.consoleAccounts.create),
  route('GET',    `${ACCOUNT}`,                                  VIEWER,   dash.consoleAccounts.get),
  route('PATCH',  `${ACCOUNT}`,                                  OWNER,    dash.consoleAccounts.update),
  route('GET',    `${ACCOUNT}/members`,                          VIEWER,   dash.accountMembers.list),
  route('PATCH',  `${ACCOUNT}/members/:membershipId`,            OWNER,    dash.accountMembers.update),
  route('DELETE', `${ACCOUNT}/members/:membershipId`,            OWNER,    dash.accountMembers.remove),
  route('GET',    `${ACCOUNT}/invitations`,                      ADMIN,    dash.operatorInvitations.list),
  route('POST',   `${ACCOUNT}/invitations`,                      ADMIN,    dash.operatorInvitations.create),
  route('POST',   `${ACCOUNT}/invitations/:invitationId/revoke`, ADMIN,    dash.operatorInvitations.revoke),

  route('GET',    `${ACCOUNT}/instances`,                        VIEWER,   dash.consoleInstances.list),
  route('POST',   `${ACCOUNT}/instances`,                        ADMIN,    dash.consoleInstances.create),
  route('GET',    `${INSTANCE}`,                                 VIEWER,   dash.consoleInstances.get),
  route('PATCH',  `${INSTANCE}`,                                 ADMIN,    dash.consoleInstances.update),
  route('DELETE', `${INSTANCE}`,                                 OWNER,    dash.consoleInstances.delete),
  route('GET',    `${INSTANCE}/metrics`,                         VIEWER,   metrics.get),
  route('PATCH',  `${INSTANCE}/settings`,                        ADMIN,    dash.consoleInstances.updateSettings),
  route('GET',    `${INSTANCE}/branding`,                        VIEWER,   branding.get),
  route('PATCH',  `${INSTANCE}/branding`,                        ADMIN,    branding.update),
  route('PUT',    `${INSTANCE}/branding/logo`,                   ADMIN,    branding.setLogo),
  route('DELETE', `${INSTANCE}/branding/logo`,                   ADMIN,    branding.deleteLogo),
  route('POST',   `${INSTANCE}/session_token/preview`,           ADMIN,    sessionTokens.preview),
  route('GET',    `${INSTANCE}/jwt_templates`,                   VIEWER,   jwtTemplates.list),
  route('POST',   `${INSTANCE}/jwt_templates`,                   ADMIN,    jwtTemplates.create),
  route('GET',    `${INSTANCE}/jwt_templates/:id`,               VIEWER,   jwtTemplates.get),
  route('PATCH',  `${INSTANCE}/jwt_templates/:id`,               ADMIN,    jwtTemplates.update),
  route('DELETE', `${INSTANCE}/jwt_templates/:id`,               ADMIN,    jwtTemplates.delete),
  route('GET',    `${INSTANCE}/keys`,                            VIEWER,   dash.instanceKeys.list),
  route('POST',   `${INSTANCE}/keys`,                            ADMIN,    dash.instanceKeys.create),
  route('POST',   `${INSTANCE}/keys/:keyId/revoke`,              ADMIN,    dash.instanceKeys.revoke),

  route('GET',    `${INSTANCE}/users`,                           VIEWER,   users.list),
  route('POST',   `${INSTANCE}/users`,                           ADMIN,    users.create),
  route('GET',    `${INSTANCE}/users/export.csv`,                ADMIN,    userExport.download),
  route('GET',    `${INSTANCE}/users/:id`,                       VIEWER,   users.get),
  route('PATCH',  `${INSTANCE}/users/:id`,                       ADMIN,    users.update),
  route('DELETE', `${INSTANCE}/users/:id`,                       ADMIN,    users.delete),
  route('POST',   `${INSTANCE}/users/:id/ban`,                   ADMIN,    users.ban),
  route('POST',   `${INSTANCE}/users/:id/unban`,                 ADMIN,    users.unban),
  route('POST',   `${INSTANCE}/users/:id/profile_image`,         ADMIN,    dashboardProfileImage.set),
  route('DELETE', `${INSTANCE}/users/:id/profile_image`,         ADMIN,    dashboardProfileImage.remove),
  route('POST',   `${INSTANCE}/users/:id/lock`,                  ADMIN,    protection.lockUser),
  route('POST',   `${INSTANCE}/users/:id/unlock`,                ADMIN,    protection.unlockUser),
  route('PUT',    `${INSTANCE}/users/:id/password`,              ADMIN,    account.setPassword),
  route('DELETE', `${INSTANCE}/users/:id/mfa`,                   ADMIN,    users.disableMfa),
  route('GET',    `${INSTANCE}/users/:id/passkeys`,              VIEWER,   passkeys.list),
  route('DELETE', `${INSTANCE}/users/:id/passkeys/:passkey_id`,  ADMIN,    passkeys.remove),
  route('POST',   `${INSTANCE}/users/:id/email_addresses`,       ADMIN,    account.emailAddresses.add),
  route('POST',   `${INSTANCE}/users/:id/email_addresses/:email_address_id/verify`, ADMIN, account.emailAddresses.verify),
  route('DELETE', `${INSTANCE}/users/:id/email_addresses/:email_address_id`,        ADMIN, account.emailAddresses.remove),
  route('POST',   `${INSTANCE}/users/:id/phone_numbers`,         ADMIN,    account.phoneNumbers.add),
  route('POST',   `${INSTANCE}/users/:id/phone_numbers/:phone_number_id/verify`,    ADMIN, account.phoneNumbers.verify),
  route('DELETE', `${INSTANCE}/users/:id/phone_numbers/:phone_number_id`,           ADMIN, account.phoneNumbers.remove),
  route('GET',    `${INSTANCE}/users/:id/organization_memberships`, VIEWER, orgs.listUserMemberships),
  route('GET',    `${INSTANCE}/users/:id/api_tokens`,            VIEWER,   account.listApiTokens),
  route('POST',   `${INSTANCE}/users/:id/api_tokens/:token_id/revoke`, ADMIN, account.revokeApiToken),
  route('POST',   `${INSTANCE}/users/:id/impersonate`,           ADMIN,    dash.impersonation.start),
  route('GET',    `${INSTANCE}/users/:id/sessions`,              VIEWER,   users.listSessions),
  route('POST',   `${INSTANCE}/users/:id/sessions/revoke`,       ADMIN,    sessions.revokeOfUser),
  route('POST',   `${INSTANCE}/sessions/:id/revoke`,             ADMIN,    sessions.revoke),

  route('GET',    `${INSTANCE}/audit_logs`,                      VIEWER,   auditLogs.list),
  route('GET',    `${INSTANCE}/people`,                          VIEWER,   people.list),
  route('GET',    `${INSTANCE}/emails`,                          VIEWER,   messages.listEmails),
  route('GET',    `${INSTANCE}/emails/:id`,                      VIEWER,   messages.getEmail),
  route('GET',    `${INSTANCE}/sms`,                             VIEWER,   messages.listSms),
  route('GET',    `${INSTANCE}/sms/:id`,                         VIEWER,   messages.getSms),
  route('GET',    `${INSTANCE}/sms_settings`,                    VIEWER,   sms.getSettings),
  route('PATCH',  `${INSTANCE}/sms_settings`,                    ADMIN,    sms.updateSettings),
  route('POST',   `${INSTANCE}/sms_settings/test_send`,          ADMIN,    sms.testSend),

  route('GET',    `${INSTANCE}/email_templates`,                 VIEWER,   l10n.emailTemplates.list),
  route('GET',    `${INSTANCE}/email_templates/:template`,       VIEWER,   l10n.emailTemplates.get),
  route('PUT',    `${INSTANCE}/email_templates/:template`,       ADMIN,    l10n.emailTemplates.put),
  route('DELETE', `${INSTANCE}/email_templates/:template`,       ADMIN,    l10n.emailTemplates.delete),
  route('POST',   `${INSTANCE}/email_templates/:template/preview`,   ADMIN, l10n.emailTemplates.preview),
  route('POST',   `${INSTANCE}/email_templates/:template/test_send`, ADMIN, l10n.emailTemplates.testSend),
  route('GET',    `${INSTANCE}/email_templates/:template/revisions`, VIEWER, l10n.emailTemplates.listRevisions),
  route('POST',   `${INSTANCE}/email_templates/:template/revisions/:revisionId/restore`, ADMIN, l10n.emailTemplates.restoreRevision),
  route('GET',    `${INSTANCE}/localizations`,                   VIEWER,   l10n.localizationTexts.list),
  route('POST',   `${INSTANCE}/localizations`,                   ADMIN,    l10n.localizationTexts.create),
  route('PATCH',  `${INSTANCE}/localizations/:localizationId`,   ADMIN,    l10n.localizationTexts.update),
  route('DELETE', `${INSTANCE}/localizations/:localizationId`,   ADMIN,    l10n.localizationTexts.delete),

  route('GET',    `${INSTANCE}/webhook_endpoints`,                      VIEWER, webhooks.list),
  route('POST',   `${INSTANCE}/webhook_endpoints`,                      ADMIN,  webhooks.create),
  route('GET',    `${INSTANCE}/webhook_endpoints/:id`,                  VIEWER, webhooks.get),
  route('PATCH',  `${INSTANCE}/webhook_endpoints/:id`,                  ADMIN,  webhooks.update),
  route('DELETE', `${INSTANCE}/webhook_endpoints/:id`,                  ADMIN,  webhooks.delete),
  route('GET',    `${INSTANCE}/webhook_endpoints/:id/secret`,           ADMIN,  webhooks.revealSecret),
  route('POST',   `${INSTANCE}/webhook_endpoints/:id/secret/rotate`,    ADMIN,  webhooks.rotateSecret),
  route('POST',   `${INSTANCE}/webhook_endpoints/:id/test`,             ADMIN,  webhooks.test),
  route('GET',    `${INSTANCE}/webhook_endpoints/:id/deliveries`,       VIEWER, webhooks.deliveries),
  route('POST',   `${INSTANCE}/webhook_endpoints/:id/deliveries/:message_id/retry`, ADMIN, webhooks.retry),
  route('POST',   `${INSTANCE}/webhook_endpoints/:id/recover`,          ADMIN,  webhooks.recover),

  route('GET',    `${INSTANCE}/oauth_applications`,                     VIEWER, oauthApps.list),
  route('POST',   `${INSTANCE}/oauth_applications`,                     ADMIN,  oauthApps.create),
  route('GET',    `${INSTANCE}/oauth_applications/:id`,                 VIEWER, oauthApps.get),
  route('PATCH',  `${INSTANCE}/oauth_applications/:id`,                 ADMIN,  oauthApps.update),
  route('DELETE', `${INSTANCE}/oauth_applications/:id`,                 ADMIN,  oauthApps.delete),
  route('POST',   `${INSTANCE}/oauth_applications/:id/rotate_secret`,   ADMIN,  oauthApps.rotateSecret),
  route('GET',    `${INSTANCE}/oauth_applications/:id/logout_deliveries`, VIEWER, oauthApps.logoutDeliveries),
  route('GET',    `${INSTANCE}/oauth_initial_access_tokens`,            VIEWER, oauthIats.list),
  route('POST',   `${INSTANCE}/oauth_initial_access_tokens`,            ADMIN,  oauthIats.create),
  route('POST',   `${INSTANCE}/oauth_initial_access_tokens/:id/revoke`, ADMIN,  oauthIats.revoke),
  route('GET',    `${INSTANCE}/lti_platforms`,                          VIEWER, ltiPlatforms.list),
  route('POST',   `${INSTANCE}/lti_platforms`,                          ADMIN,  ltiPlatforms.create),
  route('GET',    `${INSTANCE}/lti_platforms/:id`,                      VIEWER, ltiPlatforms.get),
  route('PATCH',  `${INSTANCE}/lti_platforms/:id`,                      ADMIN,  ltiPlatforms.update),
  route('DELETE', `${INSTANCE}/lti_platforms/:id`,                      ADMIN,  ltiPlatforms.delete),

  route('GET',    `${INSTANCE}/organizations`,                   VIEWER,   orgs.listOrganizations),
  route('POST',   `${INSTANCE}/organizations`,                   ADMIN,    orgs.createOrganization),
  route('GET',    `${ORG}`,                                      VIEWER,   orgs.getOrganization),
  route('PATCH',  `${ORG}`,                                      ADMIN,    orgs.updateOrganization),
  route('DELETE', `${ORG}`,                                      ADMIN,    orgs.deleteOrganization),
  route('GET',    `${ORG}/memberships`,                          VIEWER,   orgs.listMemberships),
  route('POST',   `${ORG}/memberships`,                          ADMIN,    orgs.createMembership),
  route('PATCH',  `${ORG}/memberships/:user_id`,                 ADMIN,    orgs.updateMembership),
  route('DELETE', `${ORG}/memberships/:user_id`,                 ADMIN,    orgs.deleteMembership),
  route('GET',    `${ORG}/invitations`,                          VIEWER,   orgs.listInvitations),
  route('POST',   `${ORG}/invitations`,                          ADMIN,    orgs.createInvitation),
  route('POST',   `${ORG}/invitations/:invitation_id/revoke`,    ADMIN,    orgs.revokeInvitation),
  route('GET',    `${ORG}/domains`,                              VIEWER,   orgs.listDomains),
  route('POST',   `${ORG}/domains`,                              ADMIN,    orgs.createDomain),
  route('PATCH',  `${ORG}/domains/:domain_id`,                   ADMIN,    orgs.updateDomain),
  route('POST',   `${ORG}/domains/:domain_id/attempt_verification`, ADMIN, orgs.attemptDomainVerification),
  route('DELETE', `${ORG}/domains/:domain_id`,                   ADMIN,    orgs.deleteDomain),
  route('POST',   `${ORG}/portal_links`,                         ADMIN,    dashboardPortalLink),
  route('GET',    `${ORG}/scim_status`,                          VIEWER,   scim.status),
  route('GET',    `${ORG}/scim_tokens`,                          VIEWER,   scim.listTokens),
  route('POST',   `${ORG}/scim_tokens`,                          ADMIN,    scim.createToken),
  route('POST',   `${ORG}/scim_tokens/:token_id/revoke`,         ADMIN,    scim.revokeToken),
  route('GET',    `${ORG}/scim_users`,                           VIEWER,   scim.listUsers),
  route('GET',    `${ORG}/scim_groups`,                          VIEWER,   scim.listGroups),
  route('PATCH',  `${ORG}/scim_groups/:group_id`,                ADMIN,    scim.mapGroup),
  route('GET',    `${ORG}/sso_connections`,                      VIEWER,   sso.list),
  route('POST',   `${ORG}/sso_connections`,                      ADMIN,    sso.create),
  route('GET',    `${ORG}/sso_connections/:connection_id`,       VIEWER,   sso.get),
  route('PATCH',  `${ORG}/sso_connections/:connection_id`,       ADMIN,    sso.update),
  route('DELETE', `${ORG}/sso_connections/:connection_id`,       ADMIN,    sso.delete),
  route('GET',    `${INSTANCE}/roles`,                           VIEWER,   orgs.listRoles),
  route('POST',   `${INSTANCE}/roles`,                           ADMIN,    orgs.createRole),
  route('PATCH',  `${INSTANCE}/roles/:id`,                       ADMIN,    orgs.updateRole),
  route('DELETE', `${INSTANCE}/roles/:id`,                       ADMIN,    orgs.deleteRole),
  route('GET',    `${INSTANCE}/permissions`,                     VIEWER,   orgs.listPermissions),
  route('POST',   `${INSTANCE}/permissions`,                     ADMIN,    orgs.createPermission),
  route('PATCH',  `${INSTANCE}/permissions/:id`,                 ADMIN,    orgs.updatePermission),
  route('DELETE', `${INSTANCE}/permissions/:id`,                 ADMIN,    orgs.deletePermission),

  route('GET',    `${INSTANCE}/rate_limit_policy`,               VIEWER,   limits.getPolicy),
  route('PATCH',  `${INSTANCE}/rate_limit_policy`,               ADMIN,    limits.updatePolicy),
  route('GET',    `${INSTANCE}/network_acls`,                    VIEWER,   limits.listAcls),
  route('POST',   `${INSTANCE}/network_acls`,                    ADMIN,    limits.createAcl),
  route('GET',    `${INSTANCE}/network_acls/:id`,                VIEWER,   limits.getAcl),
  route('PATCH',  `${INSTANCE}/network_acls/:id`,                ADMIN,    limits.updateAcl),
  route('DELETE', `${INSTANCE}/network_acls/:id`,                ADMIN,    limits.deleteAcl),
  route('GET',    `${INSTANCE}/attack_protection`,               VIEWER,   protection.getAttackProtection),
  route('PATCH',  `${INSTANCE}/attack_protection`,               ADMIN,    protection.updateAttackProtection),
  route('GET',    `${INSTANCE}/risk_based_mfa`,                  VIEWER,   protection.getRiskBasedMfa),
  route('PATCH',  `${INSTANCE}/risk_based_mfa`,                  ADMIN,    protection.updateRiskBasedMfa),
  route('GET',    `${INSTANCE}/social_providers`,                VIEWER,   social.list),
  route('POST',   `${INSTANCE}/social_providers`,                ADMIN,    social.create),
  route('GET',    `${INSTANCE}/social_providers/:id`,            VIEWER,   social.get),
  route('PATCH',  `${INSTANCE}/social_providers/:id`,            ADMIN,    social.update),
  route('DELETE', `${INSTANCE}/social_providers/:id`,            ADMIN,    social.delete),
  route('GET',    `${INSTANCE}/api_keys`,                        VIEWER,   apiKeys.list),
  route('POST',   `${INSTANCE}/api_keys`,                        ADMIN,    apiKeys.create),
  route('GET',    `${INSTANCE}/api_keys/:id`,                    VIEWER,   apiKeys.get),
  route('PATCH',  `${INSTANCE}/api_keys/:id`,                    ADMIN,    apiKeys.update),
  route('POST',   `${INSTANCE}/api_keys/:id/revoke`,             ADMIN,    apiKeys.revoke),
  route('GET',    `${INSTANCE}/billing/plans`,                   VIEWER,   billing.listPlans),
  route('POST',   `${INSTANCE}/billing/plans`,                   ADMIN,    billing.createPlan),
  route('GET',    `${INSTANCE}/billing/plans/:id`,               VIEWER,   billing.getPlan),
  route('PATCH',  `${INSTANCE}/billing/plans/:id`,               ADMIN,    billing.updatePlan),
  route('DELETE', `${INSTANCE}/billing/plans/:id`,               ADMIN,    billing.deletePlan),
  route('GET',    `${INSTANCE}/billing/settings`,                VIEWER,   billing.getSettings),
  route('PATCH',  `${INSTANCE}/billing/settings`,                ADMIN,    billing.updateSettings),
  route('GET',    `${INSTANCE}/subscriptions`,                   VIEWER,   billing.listSubscriptions),
  route('GET',    `${INSTANCE}/waitlist_entries`,                VIEWER,   waitlist.list),
  route('POST',   `${INSTANCE}/waitlist_entries`,                ADMIN,    waitlist.create),
  route('POST',   `${INSTANCE}/waitlist_entries/invite`,         ADMIN,    waitlist.inviteMany),
  route('GET',    `${INSTANCE}/waitlist_entries/:id`,            VIEWER,   waitlist.get),
  route('POST',   `${INSTANCE}/waitlist_entries/:id/invite`,     ADMIN,    waitlist.invite),
  route('POST',   `${INSTANCE}/waitlist_entries/:id/reject`,     ADMIN,    waitlist.reject),
];

export function createDashboard(deps: Deps) {
  return buildSurface<ConsoleGuard, ConsoleAuth>(
    deps,
    {
      name: 'dashboard',
      routes: dashboardRoutes,
      protocol: jsonProtocol(),
      authenticate: (c, r) => authenticateConsole(deps, c, r.guard),
      actorOf: (auth, request) => (auth.operatorId ? operatorActor(auth.operatorId, request) : anonymousActor(request)),
    },
    ROUTER_GUARDS,
  );
}

/** The dashboard API's OpenAPI document (not served; the SDK type generator reads it). */
export function dashboardOpenApi(publicUrl: string) {
  return buildOpenApi({
    title: 'Latchkey dashboard API',
    version: '1',
    serverUrl: `${publicUrl}/v1/dashboard`,
    routes: dashboardRoutes,
    describeGuard: (g) => ({ security: g !== PUBLIC }),
    security: { name: 'console', scheme: { type: 'apiKey', in: 'cookie', name: '__console_client', description: 'A console session' } },
  });
}
