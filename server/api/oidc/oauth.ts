import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../../deps';
import { oauthAuthorizations, oauthRefreshTokens } from '../../db/schema';
import { sha256Hex } from '../../crypto/secrets';
import { auditContextOf } from '../../http/actor';
import { AppError } from '../../http/errors';
import { endpoint, htmlPage, jsonResult, noContent, redirect, textResult } from '../../http/endpoint';
import type { InstanceContext } from '../../instances/instances';
import { LOCALE_COOKIE } from '../../../i18n/locales';
import { endAllClientSessions } from '../../sessions/sign-out';
import { publishedKeys } from '../../signing/signing-keys';
import { jwksSchema } from '../bapi/signing';
import { findApplication } from '../../oauth/applications';
import { accessTokenAuthorization, accessTokenInForce, revokeAccessToken, revokeAuthorizations } from '../../oauth/authorizations';
import { authenticateClient } from '../../oauth/client-auth';
import { authorize, authorizeParams } from '../../oauth/authorize';
import { releasedClaimNames, userClaims } from '../../oauth/claims';
import { oauthError } from '../../oauth/errors';
import { loggedOutPage, logoutConfirmPage, pageLocale, providerErrorPage } from '../../oauth/pages';
import type { OidcAuth } from '../../oauth/oidc-caller';
import { CLAIMS_SUPPORTED, OIDC_SCOPES, parseScope } from '../../oauth/scopes';
import { ACR_VALUES } from '../../oauth/authentication';
import { REQUEST_OBJECT_ALGS } from '../../oauth/request-object';
import { GRANT_TYPES } from '../../oauth/token-endpoint';
import { startDeviceAuthorization } from '../../oauth/device';
import { deviceVerification } from '../../oauth/device-page';
import { enforceLimit } from '../../limits/rate-limit';
import { tokenLimits } from '../../oauth/oidc-caller';
import { ACCESS_TOKEN_TYP, signUserinfo, verifyAccessToken, verifyIdTokenHint } from '../../oauth/tokens';
import { bearerToken } from '../../http/request-context';
import { deleteRegistration, readRegistration, registerClient, updateRegistration } from '../../oauth/registration';
import { registrationLimit } from '../../oauth/oidc-caller';

type D = Deps;
const NO_STORE = { 'cache-control': 'no-store' };

/** Discovery (OIDC Discovery 1.0 §3, RFC 8414 §2): every URL under the issuer, which is the fapi_url as stored. */
function providerMetadata(instance: InstanceContext) {
  const issuer = instance.fapiUrl;
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth2/authorize`,
    token_endpoint: `${issuer}/oauth2/token`,
    userinfo_endpoint: `${issuer}/oauth2/userinfo`,
    revocation_endpoint: `${issuer}/oauth2/revoke`,
    introspection_endpoint: `${issuer}/oauth2/introspect`,
    end_session_endpoint: `${issuer}/oauth2/end_session`,
    device_authorization_endpoint: `${issuer}/oauth2/device_authorization`,
    registration_endpoint: `${issuer}/oauth2/register`,
    jwks_uri: `${issuer}/.well-known/jwks.json`,
    response_types_supported: ['code'],
    response_modes_supported: ['query', 'form_post'],
    grant_types_supported: GRANT_TYPES,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['RS256'],
    userinfo_signing_alg_values_supported: ['RS256'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    revocation_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post', 'none'],
    introspection_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    scopes_supported: [...OIDC_SCOPES],
    claims_supported: CLAIMS_SUPPORTED,
    acr_values_supported: [...ACR_VALUES],
    prompt_values_supported: ['none', 'login', 'consent', 'select_account'],
    ui_locales_supported: ['en', 'fr', 'de'],
    authorization_response_iss_parameter_supported: true,
    claims_parameter_supported: true,
    request_parameter_supported: true,
    request_object_signing_alg_values_supported: [...REQUEST_OBJECT_ALGS],
    request_uri_parameter_supported: false,
    backchannel_logout_supported: true,
    backchannel_logout_session_supported: true,
  };
}

const metadataSchema = z.record(z.string(), z.unknown());

const htmlResponse = z.unknown();

const consentBody = authorizeParams;

/**
 * RFC 6750: the access token from the Authorization header (§2.1) or, on POST, a form body's
 * `access_token` (§2.2), not both; §3.1 errors with WWW-Authenticate. The answer holds the
 * claims of the token's scopes and those the `claims` parameter asked for the UserInfo answer.
 */
async function userinfo(deps: D, auth: OidcAuth, formToken?: string) {
  const header = bearerToken(auth.authorization);
  if (header && formToken) throw oauthError('invalid_request', 'Send the access token once: in the Authorization header or the form body.');
  const token = header ?? formToken;
  if (!token)
    throw oauthError('invalid_request', 'Send the access token as Authorization: Bearer (or access_token in a POST form body).', 401);
  const claims = await verifyAccessToken(deps, auth.instance, token);
  const authorization = claims ? await accessTokenAuthorization(deps, auth.instance.id, claims.jti) : null;
  if (!claims || !authorization) throw oauthError('invalid_token', 'The access token is invalid, expired or revoked.', 401);
  const scopes = parseScope(claims.scope);
  if (!scopes.includes('openid') || claims.sub === claims.client_id) {
    throw new AppError('FORBIDDEN', {
      message: 'The access token was not granted the openid scope.',
      meta: { oauth_error: 'insufficient_scope' },
      headers: { 'www-authenticate': 'Bearer realm="latchkey", error="insufficient_scope", scope="openid"' },
    });
  }
  const user = await userClaims(deps, auth.instance.id, claims.sub, releasedClaimNames(scopes, authorization.context?.claims?.userinfo));
  if (!user) throw oauthError('invalid_token', 'The user of this token no longer exists or is banned.', 401);
  // A client registered with userinfo_signed_response_alg gets the answer as a signed JWT (OIDC Core §5.3.2).
  const app = await findApplication(deps, auth.instance.id, claims.client_id);
  if (app?.registrationMetadata?.userinfo_signed_response_alg === 'RS256')
    return textResult(await signUserinfo(deps, auth.instance, { clientId: app.id, claims: user }), 'application/jwt', 200, NO_STORE);
  return jsonResult(user, 200, NO_STORE);
}

const userinfoSchema = z.record(z.string(), z.unknown());

const userinfoForm = z.object({ access_token: z.string().min(1).max(8192).optional() });

const tokenParam = z.object({
  token: z.string().max(8192).optional(),
  token_type_hint: z.string().max(64).optional(),
  client_id: z.string().max(512).optional(),
  client_secret: z.string().max(512).optional(),
});

/** A refresh token of this instance by its digest, with its authorization. */
async function findRefreshToken(deps: D, instanceId: string, token: string) {
  const [row] = await deps.db
    .select({ token: oauthRefreshTokens, authorization: oauthAuthorizations })
    .from(oauthRefreshTokens)
    .innerJoin(oauthAuthorizations, eq(oauthAuthorizations.id, oauthRefreshTokens.authorizationId))
    .where(and(eq(oauthRefreshTokens.digest, sha256Hex(token)), eq(oauthAuthorizations.instanceId, instanceId)));
  return row ?? null;
}

const introspectionSchema = z.object({
  active: z.boolean(),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  sub: z.string().optional(),
  exp: z.number().int().optional(),
  iat: z.number().int().optional(),
  iss: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  jti: z.string().optional(),
  token_type: z.string().optional(),
});

const endSessionParams = z.object({
  id_token_hint: z.string().max(8192).optional(),
  post_logout_redirect_uri: z.string().max(2048).optional(),
  state: z.string().max(2048).optional(),
  client_id: z.string().max(512).optional(),
  ui_locales: z.string().max(256).optional(),
  confirm: z.string().max(8).optional(),
});
type EndSessionParams = z.output<typeof endSessionParams>;

/**
 * OpenID RP-Initiated Logout 1.0: ends this browser's sessions, then goes to a
 * registered post_logout_redirect_uri (with `state`) or shows a signed-out page. Without a
 * valid id_token_hint the user confirms first (a page with a form), so that a foreign page
 * cannot sign anyone out with a link.
 */
async function endSession(
  deps: D,
  ctx: {
    auth: OidcAuth;
    params: EndSessionParams;
    request: { acceptLanguage: string | null; requestId: string };
    actor: Parameters<typeof auditContextOf>[0];
    posted: boolean;
  },
) {
  const { auth, params, request } = ctx;
  const { instance } = auth;
  const l = pageLocale({
    uiLocales: params.ui_locales,
    cookie: auth.cookie(LOCALE_COOKIE),
    acceptLanguage: request.acceptLanguage,
    instanceDefault: instance.settings.default_locale ?? null,
  });
  // Framing is refused by the surface's security headers (server/http/security-headers.ts).
  const page = (html: string, status = 200) => htmlPage(html, status, NO_STORE);
  const hint = params.id_token_hint ? await verifyIdTokenHint(deps, instance, params.id_token_hint) : null;
  if (params.id_token_hint && !hint)
    return page(providerErrorPage(l, 'The id_token_hint is not a valid ID token of this provider.', request.requestId), 400);
  if (hint && params.client_id && params.client_id !== hint.clientId)
    return page(providerErrorPage(l, 'client_id differs from the id_token_hint’s audience.', request.requestId), 400);
  const clientId = hint?.clientId ?? params.client_id;
  let target: string | null = null;
  if (params.post_logout_redirect_uri !== undefined) {
    const app = clientId ? await findApplication(deps, instance.id, clientId) : null;
    if (!app || !app.postLogoutRedirectUris.includes(params.post_logout_redirect_uri)) {
      return page(providerErrorPage(l, 'The post_logout_redirect_uri is not registered for this application.', request.requestId), 400);
    }
    const url = new URL(params.post_logout_redirect_uri);
    if (params.state !== undefined) url.searchParams.set('state', params.state);
    target = url.toString();
  }
  if (!hint && !(ctx.posted && params.confirm === '1')) {
    const { confirm: _confirm, ...carried } = params;
    const kept = Object.fromEntries(Object.entries(carried).filter((e): e is [string, string] => e[1] !== undefined));
    return page(logoutConfirmPage(l, `${instance.fapiUrl}/oauth2/end_session`, kept));
  }
  // Every session of this browser ends (with a hint, every session of that user: another user signed in since stays).
  if (auth.client)
    await endAllClientSessions(deps, instance, auth.client, auditContextOf(ctx.actor), hint ? { userId: hint.sub } : undefined);
  return target ? redirect(target, ctx.posted ? 303 : 302, NO_STORE) : page(loggedOutPage(l));
}

const deviceAuthorizationBody = z.object({
  client_id: z.string().max(4096).optional(),
  client_secret: z.string().max(4096).optional(),
  scope: z.string().max(4096).optional(),
});

/** RFC 8628 §3.2's answer. */
const deviceAuthorizationResponse = z.object({
  device_code: z.string(),
  user_code: z.string(),
  verification_uri: z.string(),
  verification_uri_complete: z.string(),
  expires_in: z.number().int(),
  interval: z.number().int(),
});

const deviceQuery = z.object({ user_code: z.string().max(64).optional() });
const deviceBody = z.object({ user_code: z.string().max(64).optional(), decision: z.string().max(16).optional() });

export const discovery = {
  getOpenidConfiguration: endpoint<OidcAuth>({
    summary: 'OpenID Provider metadata (OpenID Connect Discovery 1.0)',
    response: metadataSchema,
    handle: async ({ auth }) => providerMetadata(auth.instance),
  }),
  getAuthorizationServerMetadata: endpoint<OidcAuth>({
    summary: 'OAuth 2.0 Authorization Server Metadata (RFC 8414)',
    response: metadataSchema,
    handle: async ({ auth }) => providerMetadata(auth.instance),
  }),
  getJwks: endpoint<OidcAuth>({
    summary: 'The instance’s public signing keys (JWKS)',
    response: jwksSchema,
    handle: async ({ deps, auth }) => ({ keys: await publishedKeys(deps, auth.instance.id) }),
  }),
};

export const authorizationRequests = {
  authorize: endpoint<OidcAuth, never, z.output<typeof authorizeParams>>({
    summary: 'Authorization endpoint (code flow with PKCE): a redirect to the client, the hosted sign-in, or the consent page',
    query: authorizeParams,
    response: htmlResponse,
    handle: ({ deps, auth, query, request, actor }) => authorize(deps, { auth, params: query, request, actor }),
  }),
  /** OIDC Core §3.1.2.1: the same request as a form post (from the relying party's page, so from another origin). */
  authorizePost: endpoint<OidcAuth, z.output<typeof authorizeParams>>({
    summary: 'Authorization endpoint by form post (OIDC Core §3.1.2.1): the same answers as GET',
    audit: { unaudited: 'an authorization request sent as POST; a consent it records is audited by the domain' },
    body: authorizeParams,
    response: htmlResponse,
    handle: ({ deps, auth, body, request, actor }) => authorize(deps, { auth, params: body, request, actor }),
  }),
  consent: endpoint<OidcAuth, z.output<typeof consentBody>>({
    summary: 'The consent page’s answer: allow (remembers the grant, issues a code) or deny (access_denied)',
    audit: { action: 'oauth_grant.created', recordedBy: 'domain' },
    body: consentBody,
    response: htmlResponse,
    handle: ({ deps, auth, body, request, actor }) => {
      const { decision, ...params } = body;
      const answer = decision === 'allow' || decision === 'deny' ? decision : undefined;
      if (!answer) throw oauthError('invalid_request', 'decision is allow or deny.');
      return authorize(deps, { auth, params, request, actor, decision: answer });
    },
  }),
};

export const userinfoRequests = {
  get: endpoint<OidcAuth>({
    summary: 'UserInfo (OIDC Core §5.3): the claims of the access token’s scopes',
    response: userinfoSchema,
    handle: ({ deps, auth }) => userinfo(deps, auth),
  }),
  post: endpoint<OidcAuth, z.output<typeof userinfoForm>>({
    summary: 'UserInfo by POST (OIDC Core §5.3.1): the token in the Authorization header or the form body (RFC 6750 §2.2)',
    audit: { unaudited: 'a read sent as POST' },
    body: userinfoForm,
    response: userinfoSchema,
    handle: ({ deps, auth, body }) => userinfo(deps, auth, body.access_token),
  }),
};

export const oauthTokens = {
  /** RFC 7009: always 200; a token of another client, or an unknown one, is left alone. */
  revoke: endpoint<OidcAuth, z.output<typeof tokenParam>>({
    summary: 'Token revocation (RFC 7009): a refresh token revokes its whole grant, an access token itself',
    audit: { unaudited: 'the revocation is recorded on the token; client authentication failures are audited by the domain' },
    body: tokenParam,
    response: z.unknown(),
    handle: async ({ deps, auth, body, request }) => {
      const { app } = await authenticateClient(deps, auth.instance.id, auth.authorization, body, request);
      if (!body.token) throw oauthError('invalid_request', 'token is required.');
      const now = deps.clock.now();
      const access = await verifyAccessToken(deps, auth.instance, body.token);
      if (access) {
        if (access.client_id === app.id) await revokeAccessToken(deps, auth.instance.id, access.jti, access.exp * 1000);
      } else {
        const refresh = await findRefreshToken(deps, auth.instance.id, body.token);
        if (refresh && refresh.authorization.applicationId === app.id) await revokeAuthorizations(deps.db, now, [refresh.authorization.id]);
      }
      return jsonResult({}, 200, NO_STORE);
    },
  }),
  /**
   * RFC 7662, for confidential clients of the instance (resource servers): access tokens of
   * any app of the instance, refresh tokens only of the caller. Revoked or expired: `{active:false}`.
   */
  introspect: endpoint<OidcAuth, z.output<typeof tokenParam>>({
    summary: 'Token introspection (RFC 7662)',
    audit: { unaudited: 'a read sent as POST' },
    body: tokenParam,
    response: introspectionSchema,
    handle: async ({ deps, auth, body, request }) => {
      const { app } = await authenticateClient(deps, auth.instance.id, auth.authorization, body, request);
      if (app.public) throw oauthError('unauthorized_client', 'A public client cannot introspect tokens.', 401);
      if (!body.token) throw oauthError('invalid_request', 'token is required.');
      const inactive = jsonResult({ active: false }, 200, NO_STORE);
      const access = await verifyAccessToken(deps, auth.instance, body.token);
      if (access) {
        if (!(await accessTokenInForce(deps, auth.instance.id, access.jti))) return inactive;
        const { client_id, scope, sub, exp, iat, iss, aud, jti } = access;
        return jsonResult({ active: true, client_id, scope, sub, exp, iat, iss, aud, jti, token_type: ACCESS_TOKEN_TYP }, 200, NO_STORE);
      }
      const refresh = await findRefreshToken(deps, auth.instance.id, body.token);
      const now = deps.clock.now();
      if (
        !refresh ||
        refresh.authorization.applicationId !== app.id ||
        refresh.authorization.revokedAt !== null ||
        refresh.token.rotatedAt !== null ||
        refresh.token.expiresAt <= now
      ) {
        return inactive;
      }
      return jsonResult(
        {
          active: true,
          client_id: app.id,
          scope: refresh.authorization.scope,
          sub: refresh.authorization.userId,
          exp: Math.floor(refresh.token.expiresAt / 1000),
          iat: Math.floor(refresh.token.createdAt / 1000),
          iss: auth.instance.fapiUrl,
          token_type: 'refresh_token',
        },
        200,
        NO_STORE,
      );
    },
  }),
};

export const deviceAuthorizations = {
  create: endpoint<OidcAuth, z.output<typeof deviceAuthorizationBody>>({
    summary: 'Device Authorization Grant (RFC 8628 §3.1): a device_code to poll with and a user_code for the verification page',
    audit: { unaudited: 'a pending request; the user’s answer on the verification page is audited by the domain' },
    body: deviceAuthorizationBody,
    response: deviceAuthorizationResponse,
    handle: async ({ deps, auth, body, request }) => {
      const { app } = await authenticateClient(deps, auth.instance.id, auth.authorization, body, request);
      await enforceLimit(deps, 'oidc', tokenLimits(deps).perClient, `${auth.instance.id}:${app.id}`);
      return jsonResult(await startDeviceAuthorization(deps, auth.instance, app, body.scope), 200, NO_STORE);
    },
  }),
  verify: endpoint<OidcAuth, never, z.output<typeof deviceQuery>>({
    summary: 'The device flow’s verification page (RFC 8628 §3.3): sign in, enter the code (or confirm the one in the link)',
    query: deviceQuery,
    response: htmlResponse,
    handle: ({ deps, auth, query, request, actor }) =>
      deviceVerification(deps, { auth, request, actor, userCode: query.user_code, method: 'GET' }),
  }),
  verifyPost: endpoint<OidcAuth, z.output<typeof deviceBody>>({
    summary: 'The verification page’s forms: a code entered (the app and scopes to confirm), or the user’s answer (allow or deny)',
    audit: { action: 'oauth_device.approved', recordedBy: 'domain' },
    body: deviceBody,
    response: htmlResponse,
    handle: ({ deps, auth, body, request, actor }) =>
      deviceVerification(deps, { auth, request, actor, userCode: body.user_code, decision: body.decision, method: 'POST' }),
  }),
};

export const endSessionRequests = {
  end: endpoint<OidcAuth, never, EndSessionParams>({
    summary: 'RP-initiated logout (OpenID RP-Initiated Logout 1.0)',
    query: endSessionParams,
    response: htmlResponse,
    handle: ({ deps, auth, query, request, actor }) => endSession(deps, { auth, params: query, request, actor, posted: false }),
  }),
  endPost: endpoint<OidcAuth, EndSessionParams>({
    summary: 'RP-initiated logout by form post (also the confirmation page’s answer)',
    audit: { unaudited: 'ending the session is audited by the sessions domain' },
    body: endSessionParams,
    response: htmlResponse,
    handle: ({ deps, auth, body, request, actor }) => endSession(deps, { auth, params: body, request, actor, posted: true }),
  }),
};

/** RFC 7591 §3.2.1 / RFC 7592 §3: the client information (metadata, client_id, secrets once, where to manage it). */
const clientInformationSchema = z.record(z.string(), z.unknown());
const registrationBody = z.record(z.string(), z.unknown());
const registrationToken = (auth: OidcAuth) => bearerToken(auth.authorization) ?? null;

export const clientRegistrations = {
  /** Rate-limited per caller's IP before the token is even looked at: registration writes an application. */
  register: endpoint<OidcAuth, z.output<typeof registrationBody>>({
    summary: 'Dynamic Client Registration (RFC 7591): an application from client metadata, with an initial access token (Bearer)',
    audit: { action: 'oauth_application.registered', recordedBy: 'domain' },
    body: registrationBody,
    response: clientInformationSchema,
    handle: async ({ deps, auth, body, request }) => {
      if (request.ip) await enforceLimit(deps, 'oidc', registrationLimit(deps), `${auth.instance.id}:${request.ip}`);
      return jsonResult(await registerClient(deps, auth.instance, registrationToken(auth), body, request), 201, NO_STORE);
    },
  }),
  read: endpoint<OidcAuth, never, never, 'clientId'>({
    summary: 'Client configuration (RFC 7592 §2.1): the registration, with the registration access token',
    response: clientInformationSchema,
    handle: async ({ deps, auth, params }) =>
      jsonResult(await readRegistration(deps, auth.instance, params.clientId, registrationToken(auth)), 200, NO_STORE),
  }),
  update: endpoint<OidcAuth, z.output<typeof registrationBody>, never, 'clientId'>({
    summary: 'Client update (RFC 7592 §2.2): the metadata replaced by the body’s',
    audit: { action: 'oauth_application.updated', recordedBy: 'domain' },
    body: registrationBody,
    response: clientInformationSchema,
    handle: async ({ deps, auth, params, body, request }) =>
      jsonResult(await updateRegistration(deps, auth.instance, params.clientId, registrationToken(auth), body, request), 200, NO_STORE),
  }),
  delete: endpoint<OidcAuth, never, never, 'clientId'>({
    summary: 'Client deletion (RFC 7592 §2.3): the application and its tokens go',
    audit: { action: 'oauth_application.deleted', recordedBy: 'domain' },
    response: z.unknown(),
    status: 204,
    handle: async ({ deps, auth, params, request }) => {
      await deleteRegistration(deps, auth.instance, params.clientId, registrationToken(auth), request);
      return noContent(NO_STORE);
    },
  }),
};
