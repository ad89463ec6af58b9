import type { Deps } from '../../deps';
import { jsonProtocol } from '../../http/protocol';
import { ROUTER_GUARDS } from '../router-guards';
import { buildSurface, type RouteEntry } from '../../http/router';
import * as auth from './auth';
import * as orgs from './organizations';
import { memberOrganizations as member } from './organizations';
import * as sessions from './sessions';
import * as me from './users';
import { myApiKeys, organizationApiKeys as orgApiKeys } from './apikeys';
import { myBilling, organizationBilling as orgBilling } from './billing';
import { brandingLogo } from './instances';
import {
  authenticateFapi,
  authorizeFapi,
  fapiActor,
  fapiInstanceId,
  type FapiGuard,
  type MeAuth,
  type OrgMemberAuth,
  type SignedInAuth,
} from './authenticate';
import { fapiCors } from './origin';
import * as oauthGrants from './oauth';
import { waitlist } from './waitlist';
import { mockOAuth, oauthCallbacks } from './social';
import { routeTable, type GuardAuth } from '../../http/route-table';
import { myPasskeys } from './passkeys';
import { Hono } from 'hono';
import { buildOpenApi } from '../../http/openapi';
import { clerkAnswers as answer, fapiClerkLine as clerkLine, fapiClerkDialect, type FapiClerkLine } from './clerk/dialect';
import { dialectLayer } from '../../http/dialect';
import * as clerkDev from './clerk/handshake';
import { templateTokens } from './clerk/tokens';
import { clerkBundles } from './clerk/bundles';
import * as clerkOrgs from './clerk/organizations';
import * as clerkEnterprise from './clerk/enterprise-connections';
import * as sessionVerify from './session-verification';

/** Every FAPI path lives under an instance's fapi_url: `{PUBLIC_URL}/fapi/<instance_id>`. */
export const FAPI_PREFIX = '/fapi/:instanceId';

/** What a route's handler receives: a guard naming `org` or `user` has it resolved by the router. */
interface FapiAuthUnder extends GuardAuth {
  readonly auth: this['guard'] extends { org: string } ? OrgMemberAuth : this['guard'] extends { user: object } ? SignedInAuth : MeAuth;
}

export const fapiRoute = routeTable<FapiGuard, MeAuth, FapiGuard, FapiAuthUnder, typeof FAPI_PREFIX>({ prefix: FAPI_PREFIX });

/** Guards: the publishable key (required, or checked when sent), whether the client is resolved, limits, caching. */
const PK_CLIENT = { key: 'required', client: true } as const satisfies FapiGuard;
const CLIENT = { key: 'optional', client: true } as const satisfies FapiGuard;
const SIGN_IN = { key: 'optional', client: true, limit: 'sign_in' } as const satisfies FapiGuard;
const SIGN_UP = { key: 'optional', client: true, limit: 'sign_up' } as const satisfies FapiGuard;
const ATTEMPT = { key: 'optional', client: true, limit: 'attempt' } as const satisfies FapiGuard;
const SEND = { key: 'optional', client: true, limit: 'verification' } as const satisfies FapiGuard;
/** An emailed link, opened in whatever browser the mail app picks: no client needed. */
const LINK = { key: 'optional', client: true, limit: 'verification' } as const satisfies FapiGuard;
/** Joining the waitlist: anonymous, spending the per-IP sign-up budget. */
const WAITLIST = { key: 'optional', client: false, limit: 'sign_up' } as const satisfies FapiGuard;
const CALLBACK = { key: 'optional', client: true, limit: 'federation' } as const satisfies FapiGuard;
/** A provider's answer posted from its own site (form_post): no client, no cookie read; it is sent on to the GET callback. */
const POSTED_BACK = { key: 'optional', client: false, limit: 'federation' } as const satisfies FapiGuard;
const PUBLIC = { key: 'optional', client: false } as const satisfies FapiGuard;
/** The mock provider's page on test instances: a provider's step, on the federation budget; no client read. */
const MOCK_PROVIDER = { key: 'optional', client: false, limit: 'federation' } as const satisfies FapiGuard;
/** A signed-in user (a live session; `uat_` tokens only where a me-scope is named). */
const ME = { ...CLIENT, user: {} } as const satisfies FapiGuard;
const ME_READ = { ...CLIENT, user: { tokenScope: 'me:read' } } as const satisfies FapiGuard;
const ME_WRITE = { ...CLIENT, user: { tokenScope: 'me:write' } } as const satisfies FapiGuard;
/**
 * A signed-in user sending a code spends the per-IP send budget; their password and code
 * attempts are bounded per user instead (limitMfaAttempts, and each code's own 5 tries).
 */
const ME_SEND = { ...ME, limit: 'verification' } as const satisfies FapiGuard;
/** MFA enrollment works while the session is pending on its setup_mfa task. */
const ME_PENDING = { ...CLIENT, user: { allowPending: true } } as const satisfies FapiGuard;
const ORG_USER = { ...CLIENT, user: { organizations: true } } as const satisfies FapiGuard;
/** A member of the path's organization whose role holds the permission. */
const org = <P extends NonNullable<FapiGuard['org']>>(permission: P) => ({ ...ORG_USER, org: permission }) as const satisfies FapiGuard;
/** Sending an organization's invitation: its members' sends are budgeted per sender and per organization. */
const INVITE = { ...org('org:sys_memberships:manage'), sends: 'organization_invitation' } as const satisfies FapiGuard;

/**
 * Impersonation: a session redeemed from an actor token may look and act within the app, never
 * change how the account is signed into. Every route that would is wrapped here, so the rule
 * lives in this table (server/api/fapi/impersonation.test.ts walks every /v1/me route).
 */
const SIGN_IN_METHODS = 'change how the account is signed into';
const notImpersonated = <G extends FapiGuard>(guard: G, refused = SIGN_IN_METHODS, whenBodyHas?: readonly string[]) =>
  ({ ...guard, impersonation: { refused, ...(whenBodyHas ? { whenBodyHas } : {}) } }) as const satisfies FapiGuard;
/** PATCH /v1/me: names and metadata are the app's; the username and the primary identifiers sign in. */
const ME_PATCH = notImpersonated(ME_WRITE, SIGN_IN_METHODS, ['username', 'primary_email_address_id', 'primary_phone_number_id']);
/**
 * Sensitive account changes: the session must have proved its factors within the instance's
 * reverification window (403 REVERIFICATION_REQUIRED until it verifies again: POST
 * /v1/client/sessions/:id/verify). Enrolling a factor is one of them, and proves nothing.
 */
const REVERIFIED = { ...ME, reverification: {} } as const satisfies FapiGuard;
/** Enrolling a factor: also from a session pending on its setup_mfa task (just signed in, so fresh). */
const REVERIFIED_PENDING = { ...ME_PENDING, reverification: {} } as const satisfies FapiGuard;
/** A password change: the current password in the body proves it; without it (an emailed code, or no password yet) the session must be fresh. */
const PASSWORD_CHANGE = { ...ME, reverification: { unlessBodyHas: ['current_password'] } } as const satisfies FapiGuard;

/**
 * The frontend API, one route a line: method, path under the fapi_url, guard, endpoint.
 * Browsers and native apps call it; it never answers 401 to GET /v1/client.
 */
// One route a line, its columns aligned: the formatter leaves the table as written.
// prettier-ignore
export const fapiRoutes: RouteEntry<FapiGuard, MeAuth>[] = [
  fapiRoute('GET',    '/v1/environment',                  CLIENT,        auth.environment.get),
  fapiRoute('GET',    '/v1/branding/logo/:version',       PUBLIC,        brandingLogo.get),
  fapiRoute('GET',    '/v1/users/:id/profile_image/:version', PUBLIC,    me.profileImages.get),
  fapiRoute('GET',    '/v1/organization_logos/:id/:version', PUBLIC,     orgs.organizationLogo.get),
  // Clerk's browser bundles, where @clerk/nextjs and @clerk/clerk-react load them from (server/clerk-bundles).
  fapiRoute('GET',    '/npm/@clerk/:package/dist/:file',  PUBLIC,        clerkBundles.get),
  fapiRoute('GET',    '/v1/client',                       PK_CLIENT,     sessions.client.get),
  fapiRoute('DELETE', '/v1/client',                       CLIENT,        sessions.client.delete),
  fapiRoute('POST',   '/v1/client/sign_ins',                                SIGN_IN, auth.signIns.create),
  fapiRoute('GET',    '/v1/client/sign_ins/:id',                            CLIENT,  auth.signIns.get),
  fapiRoute('POST',   '/v1/client/sign_ins/:id/prepare_first_factor',       SEND,    auth.signIns.prepareFirstFactor),
  fapiRoute('GET',    '/v1/verify',                                         LINK,    auth.verificationLinks.verify),
  fapiRoute('POST',   '/v1/client/sign_ins/:id/attempt_first_factor',       ATTEMPT, auth.signIns.attemptFirstFactor),
  fapiRoute('POST',   '/v1/client/sign_ins/:id/claim',                      ATTEMPT, auth.signIns.claim),
  fapiRoute('POST',   '/v1/client/sign_ins/:id/prepare_second_factor',      CLIENT,  auth.signIns.prepareSecondFactor),
  fapiRoute('POST',   '/v1/client/sign_ins/:id/attempt_second_factor',      ATTEMPT, auth.signIns.attemptSecondFactor),
  fapiRoute('POST',   '/v1/client/sign_ins/:id/reset_password',             ATTEMPT, auth.signIns.resetPassword),
  fapiRoute('POST',   '/v1/client/sign_ups',                                SIGN_UP, auth.signUps.create),
  fapiRoute('GET',    '/v1/client/sign_ups/:id',                            CLIENT,  auth.signUps.get),
  fapiRoute('POST',   '/v1/client/sign_ups/:id/prepare_verification',       SEND,    auth.signUps.prepareVerification),
  fapiRoute('POST',   '/v1/client/sign_ups/:id/attempt_verification',       ATTEMPT, auth.signUps.attemptVerification),
  fapiRoute('POST',   '/v1/waitlist',                                       WAITLIST, waitlist.join),
  fapiRoute('POST',   '/v1/organization_invitations/preview',               PUBLIC,   orgs.invitationTokens.preview),
  fapiRoute('GET',    '/v1/oauth_callback',                                 CALLBACK, oauthCallbacks.complete),
  fapiRoute('POST',   '/v1/oauth_callback',                                 POSTED_BACK, oauthCallbacks.postedBack),
  fapiRoute('GET',    '/v1/mock_oauth/authorize',                           MOCK_PROVIDER, mockOAuth.page),
  fapiRoute('POST',   '/v1/mock_oauth/authorize',                           MOCK_PROVIDER, mockOAuth.consent),
  fapiRoute('POST',   '/v1/client/sessions/:id/tokens',   CLIENT,        sessions.clientSessions.createToken),
  fapiRoute('POST',   '/v1/client/sessions/:id/end',      CLIENT,        sessions.clientSessions.end),
  fapiRoute('POST',   '/v1/client/sessions/:id/remove',   CLIENT,        sessions.clientSessions.remove),
  fapiRoute('POST',   '/v1/client/sessions/:id/touch',    CLIENT,        sessions.clientSessions.touch),
  fapiRoute('DELETE', '/v1/client/sessions',              CLIENT,        sessions.clientSessions.endAll),
  fapiRoute('POST',   '/v1/client/me/api_tokens',         notImpersonated(ME, 'mint personal access tokens'),        me.myApiTokens.create),
  fapiRoute('GET',    '/v1/client/me/api_tokens',         ME,        me.myApiTokens.list),
  fapiRoute('POST',   '/v1/client/me/api_tokens/:id/revoke', notImpersonated(ME, 'revoke personal access tokens'),     me.myApiTokens.revoke),
  fapiRoute('GET',    '/v1/me',                           ME_READ,        me.user.get),
  fapiRoute('PATCH',  '/v1/me',                           ME_PATCH,        me.user.update),
  fapiRoute('DELETE', '/v1/me',                           notImpersonated(REVERIFIED, 'delete the account'),        me.user.delete),
  fapiRoute('POST',   '/v1/me/profile_image',             ME_WRITE,        me.myProfileImage.set),
  fapiRoute('DELETE', '/v1/me/profile_image',             ME_WRITE,        me.myProfileImage.delete),
  fapiRoute('POST',   '/v1/me/email_addresses',           notImpersonated(REVERIFIED),        me.myEmailAddresses.add),
  fapiRoute('GET',    '/v1/me/email_addresses/:id',       ME_READ,        me.myEmailAddresses.get),
  fapiRoute('POST',   '/v1/me/email_addresses/:id/prepare_verification', notImpersonated(ME_SEND), me.myEmailAddresses.prepare),
  fapiRoute('POST',   '/v1/me/email_addresses/:id/attempt_verification', notImpersonated(ME), me.myEmailAddresses.attempt),
  fapiRoute('DELETE', '/v1/me/email_addresses/:id',       notImpersonated(REVERIFIED),        me.myEmailAddresses.remove),
  fapiRoute('POST',   '/v1/me/phone_numbers',             notImpersonated(REVERIFIED),        me.myPhoneNumbers.add),
  fapiRoute('GET',    '/v1/me/phone_numbers/:id',         ME_READ,        me.myPhoneNumbers.get),
  fapiRoute('POST',   '/v1/me/phone_numbers/:id/prepare_verification', notImpersonated(ME_SEND), me.myPhoneNumbers.prepare),
  fapiRoute('POST',   '/v1/me/phone_numbers/:id/attempt_verification', notImpersonated(ME), me.myPhoneNumbers.attempt),
  fapiRoute('DELETE', '/v1/me/phone_numbers/:id',         notImpersonated(REVERIFIED),        me.myPhoneNumbers.remove),
  fapiRoute('POST',   '/v1/me/change_password/prepare',   notImpersonated(ME_SEND, 'change the password'),        me.myPassword.prepareReauthentication),
  fapiRoute('GET',    '/v1/me/connected_accounts',        ME,        me.myConnectedAccounts.list),
  fapiRoute('DELETE', '/v1/me/connected_accounts/:id',    notImpersonated(ME),        me.myConnectedAccounts.disconnect),
  fapiRoute('GET',    '/v1/me/enterprise_connections',    ME,        clerkEnterprise.myEnterpriseConnections.list),
  fapiRoute('POST',   '/v1/me/change_password',           notImpersonated(PASSWORD_CHANGE, 'change the password'),        me.myPassword.change),
  fapiRoute('POST',   '/v1/me/totp',                      notImpersonated(REVERIFIED_PENDING),        me.myTotp.create),
  fapiRoute('POST',   '/v1/me/totp/attempt_verification', notImpersonated(ME_PENDING),        me.myTotp.confirm),
  fapiRoute('DELETE', '/v1/me/totp',                      notImpersonated(REVERIFIED),        me.myTotp.delete),
  fapiRoute('POST',   '/v1/me/backup_codes',              notImpersonated(REVERIFIED),        me.myBackupCodes.regenerate),
  fapiRoute('GET',    '/v1/me/passkeys',                  ME,        myPasskeys.list),
  fapiRoute('POST',   '/v1/me/passkeys/prepare_registration', notImpersonated(REVERIFIED_PENDING), myPasskeys.prepare),
  fapiRoute('POST',   '/v1/me/passkeys',                  notImpersonated(REVERIFIED_PENDING),        myPasskeys.create),
  fapiRoute('PATCH',  '/v1/me/passkeys/:id',              notImpersonated(ME),        myPasskeys.rename),
  fapiRoute('DELETE', '/v1/me/passkeys/:id',              notImpersonated(REVERIFIED),        myPasskeys.remove),
  fapiRoute('GET',    '/v1/me/sessions',                  ME,        sessions.mySessions.list),
  fapiRoute('POST',   '/v1/me/sessions/revoke_others',    notImpersonated(ME, 'end the account’s sessions'),        sessions.mySessions.revokeOthers),
  fapiRoute('POST',   '/v1/me/sessions/:id/revoke',       notImpersonated(ME, 'end the account’s sessions'),        sessions.mySessions.revoke),
  fapiRoute('GET',    '/v1/me/oauth_grants',              ME,        oauthGrants.myGrants.list),
  fapiRoute('DELETE', '/v1/me/oauth_grants/:id',          notImpersonated(ME, 'revoke what applications were granted'),        oauthGrants.myGrants.revoke),
  fapiRoute('GET',    '/v1/me/organization_memberships',                     ORG_USER, orgs.myMemberships.list),
  fapiRoute('DELETE', '/v1/me/organization_memberships/:id',                 org('member'), orgs.myMemberships.leave),
  fapiRoute('GET',    '/v1/me/organization_invitations',                     ORG_USER, orgs.myInvitations.list),
  fapiRoute('POST',   '/v1/me/organization_invitations/accept',              ORG_USER, orgs.myInvitations.acceptByToken),
  fapiRoute('POST',   '/v1/me/organization_invitations/:id/accept',          ORG_USER, orgs.myInvitations.accept),
  fapiRoute('GET',    '/v1/me/organization_suggestions',                     ORG_USER, orgs.mySuggestions.list),
  fapiRoute('POST',   '/v1/me/organization_suggestions/:id/accept',          ORG_USER, orgs.mySuggestions.accept),
  fapiRoute('POST',   '/v1/organizations',                                   ORG_USER, orgs.myOrganizations.create),
  fapiRoute('GET',    '/v1/organizations/:id',                               org('member'), member.getOrganization),
  fapiRoute('PATCH',  '/v1/organizations/:id',                               org('org:sys_profile:manage'), member.updateOrganization),
  fapiRoute('DELETE', '/v1/organizations/:id',                               org('org:sys_profile:delete'), member.deleteOrganization),
  fapiRoute('POST',   '/v1/organizations/:id/logo',                          org('org:sys_profile:manage'), member.setLogo),
  fapiRoute('DELETE', '/v1/organizations/:id/logo',                          org('org:sys_profile:manage'), member.deleteLogo),
  fapiRoute('GET',    '/v1/organizations/:id/memberships',                   org('org:sys_memberships:read'), member.listMemberships),
  fapiRoute('POST',   '/v1/organizations/:id/memberships',                   org('org:sys_memberships:manage'), member.createMembership),
  fapiRoute('PATCH',  '/v1/organizations/:id/memberships/:user_id',          org('org:sys_memberships:manage'), member.updateMembership),
  fapiRoute('DELETE', '/v1/organizations/:id/memberships/:user_id',          org('org:sys_memberships:manage'), member.deleteMembership),
  fapiRoute('GET',    '/v1/organizations/:id/invitations',                   org('org:sys_memberships:manage'), member.listInvitations),
  fapiRoute('POST',   '/v1/organizations/:id/invitations',                   INVITE, member.createInvitation),
  fapiRoute('POST',   '/v1/organizations/:id/invitations/:invitation_id/revoke', org('org:sys_memberships:manage'), member.revokeInvitation),
  fapiRoute('GET',    '/v1/organizations/:id/membership_requests',           org('org:sys_memberships:manage'), member.listMembershipRequests),
  fapiRoute('POST',   '/v1/organizations/:id/membership_requests/:request_id/accept', org('org:sys_memberships:manage'), member.acceptMembershipRequest),
  fapiRoute('POST',   '/v1/organizations/:id/membership_requests/:request_id/reject', org('org:sys_memberships:manage'), member.rejectMembershipRequest),
  fapiRoute('GET',    '/v1/organizations/:id/domains',                       org('org:sys_domains:read'), member.listDomains),
  fapiRoute('POST',   '/v1/organizations/:id/domains',                       org('org:sys_domains:manage'), member.createDomain),
  fapiRoute('GET',    '/v1/organizations/:id/domains/:domain_id',             org('org:sys_domains:read'), member.getDomain),
  fapiRoute('PATCH',  '/v1/organizations/:id/domains/:domain_id',             org('org:sys_domains:manage'), member.updateDomain),
  fapiRoute('DELETE', '/v1/organizations/:id/domains/:domain_id',             org('org:sys_domains:manage'), member.deleteDomain),
  fapiRoute('POST',   '/v1/organizations/:id/domains/:domain_id/prepare_verification', org('org:sys_domains:manage'), member.prepareDomainVerification),
  fapiRoute('POST',   '/v1/organizations/:id/domains/:domain_id/attempt_verification', org('org:sys_domains:manage'), member.attemptDomainVerification),
  fapiRoute('POST',   '/v1/organizations/:id/portal_links',                  notImpersonated(org('org:sys_portal:manage'), 'open the admin portal'), orgs.organizationPortalLinks.create),
  fapiRoute('GET',    '/v1/me/api_keys',                  ME,        myApiKeys.list),
  fapiRoute('POST',   '/v1/me/api_keys',                  notImpersonated(ME, 'mint API keys'),        myApiKeys.create),
  fapiRoute('POST',   '/v1/me/api_keys/:id/revoke',       notImpersonated(ME, 'revoke API keys'),        myApiKeys.revoke),
  fapiRoute('GET',    '/v1/organizations/:id/api_keys',                      org('org:sys_api_keys:manage'), orgApiKeys.list),
  fapiRoute('POST',   '/v1/organizations/:id/api_keys',                      notImpersonated(org('org:sys_api_keys:manage'), 'mint API keys'), orgApiKeys.create),
  fapiRoute('POST',   '/v1/organizations/:id/api_keys/:key_id/revoke',       org('org:sys_api_keys:manage'), orgApiKeys.revoke),
  fapiRoute('GET',    '/v1/me/billing',                   ME,        myBilling.status),
  fapiRoute('POST',   '/v1/me/billing/checkout',          notImpersonated(ME, 'start a checkout'),        myBilling.checkout),
  fapiRoute('POST',   '/v1/me/billing/portal',            notImpersonated(ME, 'open the billing portal'),        myBilling.portal),
  fapiRoute('GET',    '/v1/organizations/:id/billing',                       org('member'), orgBilling.status),
  fapiRoute('POST',   '/v1/organizations/:id/billing/checkout',              notImpersonated(org('org:sys_memberships:manage'), 'start a checkout'), orgBilling.checkout),
  fapiRoute('POST',   '/v1/organizations/:id/billing/portal',                notImpersonated(org('org:sys_memberships:manage'), 'open the billing portal'), orgBilling.portal),
  fapiRoute('POST',   '/v1/sessions/:id/refresh',         PUBLIC,        sessions.clientSessions.refresh),
  // Clerk's development-instance contract (server/api/fapi/clerk/handshake.ts): @clerk/backend's handshake, clerk-js's dev browser.
  fapiRoute('POST',   '/v1/dev_browser',                  CLIENT,        clerkDev.devBrowser.create),
  fapiRoute('GET',    '/v1/client/handshake',             CLIENT,        clerkDev.handshake.get),
  fapiRoute('POST',   '/v1/client/sessions/:id/tokens/:template', CLIENT, templateTokens.create),
  fapiRoute('GET',    '/v1/organizations/:id/roles',                         org('org:sys_memberships:read'), clerkOrgs.organizationRoles.list),
  // Reverification (server/auth/reverification.ts): a session of this client verified again, for the REVERIFIED routes.
  fapiRoute('POST',   '/v1/client/sessions/:id/verify',                       CLIENT,  sessionVerify.sessionVerifications.start),
  fapiRoute('POST',   '/v1/client/sessions/:id/verify/prepare_first_factor',  SEND,    sessionVerify.sessionVerifications.prepareFirstFactor),
  fapiRoute('POST',   '/v1/client/sessions/:id/verify/attempt_first_factor',  ATTEMPT, sessionVerify.sessionVerifications.attemptFirstFactor),
  fapiRoute('POST',   '/v1/client/sessions/:id/verify/prepare_second_factor', CLIENT,  sessionVerify.sessionVerifications.prepareSecondFactor),
  fapiRoute('POST',   '/v1/client/sessions/:id/verify/attempt_second_factor', ATTEMPT, sessionVerify.sessionVerifications.attemptSecondFactor),
];

/**
 * Clerk's dialect of this API (clerk-js, under `__clerk_api_version`; server/api/fapi/clerk/),
 * one line per method and path clerk-js calls that the route table does not answer as it is:
 * the route it is (`to`), the body fields it fixes, how its answer is shaped (else Clerk's
 * envelope `{response, client}`). Every other path clerk-js calls is the route's own; on every
 * line and route a POST with `_method=PATCH|PUT|DELETE` is that method.
 */
export const fapiClerkLines: FapiClerkLine[] = [
  // clerk-js "touches" the environment at start; it reads the answer as GET's.
  clerkLine('GET', '/v1/environment', { reshape: answer.environment }),
  clerkLine('PATCH', '/v1/environment', { to: 'GET', reshape: answer.environment }),
  // Clerk never signs a user up from a sign-in: a provider account without a user leaves the
  // sign-in `transferable`, and clerk-js's handleRedirectCallback transfers it to a sign-up.
  clerkLine('POST', '/v1/client/sign_ins', { fields: { new_user: 'transfer' } }),
  clerkLine('POST', '/v1/client/sessions/:id/tokens', { reshape: answer.asIs }),
  clerkLine('POST', '/v1/client/sessions/:id/tokens/:template', { reshape: answer.asIs }),
  clerkLine('POST', '/v1/dev_browser', { reshape: answer.asIs }),
  clerkLine('GET', '/v1/client/handshake', { reshape: answer.asIs }),
  clerkLine('POST', '/v1/me/profile_image', { reshape: answer.image }),
  clerkLine('DELETE', '/v1/me/profile_image', { reshape: answer.image }),
  // The account's sessions on every device (the profile's "Active devices").
  clerkLine('GET', '/v1/me/sessions', { reshape: answer.sessions }),
  clerkLine('GET', '/v1/me/sessions/active', { to: 'GET /v1/me/sessions', reshape: answer.sessions }),
  clerkLine('GET', '/v1/me/enterprise_connections', { reshape: answer.bareList }),
  // `user.createPasskey()`: Clerk creates an unverified passkey carrying the creation options,
  // then verifies it with the browser's credential. Latchkey's registration is the session's
  // (one at a time), so the id in the second path names nothing the route needs.
  clerkLine('POST', '/v1/me/passkeys', { to: 'POST /v1/me/passkeys/prepare_registration' }),
  clerkLine('POST', '/v1/me/passkeys/:id/attempt_verification', { to: 'POST /v1/me/passkeys' }),
  // `organization.setLogo` uploads with a PUT; Latchkey's uploads are POSTs (as `/v1/me/profile_image`).
  clerkLine('PUT', '/v1/organizations/:id/logo', { to: 'POST' }),
  // Clerk's invitation screen: each address through the organization's invitation route in turn.
  clerkLine('POST', '/v1/organizations/:id/invitations/bulk', {
    to: 'POST /v1/organizations/:id/invitations',
    each: { field: 'email_address', max: 50 },
    reshape: answer.each,
  }),
  // Organization domains: Clerk names the email-code verification "affiliation" and changes the
  // enrollment mode with a POST of its own.
  clerkLine('POST', '/v1/organizations/:id/domains/:domain_id/prepare_affiliation_verification', {
    to: 'POST /v1/organizations/:id/domains/:domain_id/prepare_verification',
    fields: { strategy: 'email_code' },
  }),
  clerkLine('POST', '/v1/organizations/:id/domains/:domain_id/attempt_affiliation_verification', {
    to: 'POST /v1/organizations/:id/domains/:domain_id/attempt_verification',
    fields: { strategy: 'email_code' },
  }),
  clerkLine('POST', '/v1/organizations/:id/domains/:domain_id/update_enrollment_mode', {
    to: 'PATCH /v1/organizations/:id/domains/:domain_id',
  }),
];

export function createFapi(deps: Deps) {
  const surface = buildSurface<FapiGuard, MeAuth>(
    deps,
    {
      name: 'fapi',
      routes: fapiRoutes,
      protocol: jsonProtocol(['json', 'form']),
      actorOf: (auth, request) => fapiActor(auth, request),
      instanceOf: async (c) => fapiInstanceId(c),
      authenticate: (c, r) => authenticateFapi(deps, c, r.guard),
      authorize: (auth, r, input) => authorizeFapi(deps, r.guard, auth, input.body),
      around: async ({ route: r, deps: d, run }) => {
        const out = await run(d);
        return r.guard.cache ? { ...out, headers: { 'cache-control': r.guard.cache } } : out;
      },
    },
    ROUTER_GUARDS,
  );
  // Clerk's browser client speaks its own dialect of this API (server/api/fapi/clerk): translated, then served here again.
  // CORS for the instance's allowed origins, preflights included, on the FAPI only.
  const app: Hono = new Hono()
    .use(
      `${FAPI_PREFIX}/*`,
      dialectLayer(fapiClerkDialect(deps, fapiClerkLines, fapiRoutes))((req, env) => app.fetch(req, env)),
    )
    .use(`${FAPI_PREFIX}/*`, fapiCors(deps))
    .route('/', surface);
  // Unmatched paths get the surface's own JSON 404/405.
  app.notFound((c) => surface.fetch(c.req.raw, c.env));
  return app;
}

/** The FAPI's OpenAPI document (not served; the SDK type generator reads it). */
export function fapiOpenApi(publicUrl: string) {
  return buildOpenApi({
    title: 'Latchkey frontend API',
    version: '1',
    serverUrl: `${publicUrl}/fapi/{instance_id}`,
    routes: fapiRoutes,
    describeGuard: (g) => ({ security: g !== PK_CLIENT }),
    security: {
      name: 'client',
      scheme: {
        type: 'apiKey',
        in: 'cookie',
        name: '__client',
        description: 'The client cookie (web) or `Authorization: Bearer ct_…` (native)',
      },
    },
  });
}
