import { createHash } from 'node:crypto';
import { and, eq, isNull } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { oauthAuthorizations, oauthCodes, oauthRefreshTokens, type OAuthAuthorizationContext } from '../db/schema';
import { constantTimeEqual, sha256Hex } from '../crypto/secrets';
import { endpoint, jsonResult, type RequestInfo } from '../http/endpoint';
import { enforceLimit } from '../limits/rate-limit';
import type { InstanceContext } from '../instances/instances';
import type { ApplicationRow } from './applications';
import { createAuthorization, issueRefreshToken, refreshSuccessorOf, revokeAuthorizations } from './authorizations';
import { rotationState } from '../crypto/refresh-rotation';
import { authenticateClient } from './client-auth';
import { idTokenClaimNames, userClaims } from './claims';
import { oauthError } from './errors';
import { tokenLimits, type OidcAuth } from './oidc-caller';
import { parseScope, USER_SCOPES } from './scopes';
import { signAccessToken, signIdToken } from './tokens';
import { pollDeviceCode } from './device';

type D = Deps;
const param = z.string().max(4096).optional();

/** Every parameter of any grant; which are required depends on grant_type (RFC 6749 §4). Unknown ones are ignored. */
const tokenBody = z.object({
  grant_type: param,
  code: param,
  redirect_uri: param,
  code_verifier: param,
  refresh_token: param,
  scope: param,
  client_id: param,
  client_secret: param,
  device_code: param,
});
type TokenBody = z.output<typeof tokenBody>;

const oauthTokenResponseSchema = z.object({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int(),
  scope: z.string(),
  id_token: z.string().optional(),
  refresh_token: z.string().optional(),
});
type TokenResponse = z.output<typeof oauthTokenResponseSchema>;

const NO_STORE = { 'cache-control': 'no-store', pragma: 'no-cache' };

const require = (body: TokenBody, name: keyof TokenBody): string => {
  const v = body[name];
  if (!v) throw oauthError('invalid_request', `${name} is required.`);
  return v;
};

/** RFC 7636 §4.6: BASE64URL(SHA256(verifier)) equals the challenge. */
function pkceMatches(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  return constantTimeEqual(createHash('sha256').update(verifier).digest('base64url'), challenge);
}

/** The tokens of a user's authorization: access token, ID token with `openid`, refresh token when one was issued. */
async function userTokens(
  deps: D,
  instance: InstanceContext,
  app: ApplicationRow,
  a: {
    authorizationId: string;
    userId: string;
    scope: string;
    authTime: number;
    nonce: string | null;
    refreshToken: string | null;
    context: OAuthAuthorizationContext | null;
  },
): Promise<TokenResponse> {
  const scopes = parseScope(a.scope);
  const access = await signAccessToken(deps, instance, {
    clientId: app.id,
    subject: a.userId,
    scope: a.scope,
    authorizationId: a.authorizationId,
    authTime: a.authTime,
  });
  const out: TokenResponse = { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, scope: a.scope };
  if (scopes.includes('openid')) {
    const claims = await userClaims(deps, instance.id, a.userId, idTokenClaimNames(scopes, a.context));
    if (!claims) throw oauthError('invalid_grant', 'The user of this grant no longer exists or is banned.');
    out.id_token = await signIdToken(deps, instance, {
      clientId: app.id,
      userId: a.userId,
      authTime: a.authTime,
      nonce: a.nonce,
      claims,
      authentication: a.context,
    });
  }
  if (a.refreshToken) out.refresh_token = a.refreshToken;
  return out;
}

/** RFC 6749 §4.1.3 with PKCE (RFC 7636): a code is good once; a second use revokes what the first issued. */
async function exchangeCode(deps: D, instance: InstanceContext, app: ApplicationRow, body: TokenBody): Promise<TokenResponse> {
  const code = require(body, 'code');
  const digest = sha256Hex(code);
  const now = deps.clock.now();
  const [row] = await deps.db
    .select()
    .from(oauthCodes)
    .where(and(eq(oauthCodes.digest, digest), eq(oauthCodes.instanceId, instance.id)));
  if (!row || row.applicationId !== app.id) throw oauthError('invalid_grant', 'The authorization code is invalid.');
  if (row.usedAt !== null) {
    if (row.authorizationId) await revokeAuthorizations(deps.db, now, [row.authorizationId]);
    throw oauthError('invalid_grant', 'The authorization code was already used; the tokens it issued are revoked.');
  }
  if (row.expiresAt <= now) throw oauthError('invalid_grant', 'The authorization code has expired.');
  if (body.redirect_uri !== row.redirectUri) throw oauthError('invalid_grant', 'redirect_uri differs from the authorization request’s.');
  if (row.codeChallenge !== null) {
    if (!body.code_verifier || !pkceMatches(body.code_verifier, row.codeChallenge))
      throw oauthError('invalid_grant', 'The PKCE code_verifier does not match.');
  } else if (body.code_verifier !== undefined) {
    throw oauthError('invalid_grant', 'This code was issued without a code_challenge.');
  }

  const issued = await deps.db.transaction(async (tx) => {
    // The claim is the single use: a concurrent exchange finds used_at set and gets nothing.
    const [claimed] = await tx
      .update(oauthCodes)
      .set({ usedAt: now })
      .where(and(eq(oauthCodes.digest, digest), isNull(oauthCodes.usedAt)))
      .returning({ digest: oauthCodes.digest });
    if (!claimed) throw oauthError('invalid_grant', 'The authorization code was already used.');
    const authorization = await createAuthorization(tx, now, {
      instanceId: instance.id,
      applicationId: app.id,
      userId: row.userId,
      scope: row.scope,
      authTime: row.authTime,
      context: row.context,
    });
    await tx.update(oauthCodes).set({ authorizationId: authorization.id }).where(eq(oauthCodes.digest, digest));
    const refreshToken = parseScope(row.scope).includes('offline_access') ? await issueRefreshToken(tx, now, authorization.id) : null;
    return { authorizationId: authorization.id, refreshToken };
  });
  return userTokens(deps, instance, app, {
    ...issued,
    userId: row.userId,
    scope: row.scope,
    authTime: row.authTime,
    nonce: row.nonce,
    context: row.context,
  });
}

/**
 * RFC 6749 §6: rotated on every use (crypto/refresh-rotation.ts). A rotated token presented again within the
 * grace window (concurrent refreshes) gets the same successor; after it, it is reuse and the
 * whole authorization is revoked.
 */
async function refresh(deps: D, instance: InstanceContext, app: ApplicationRow, body: TokenBody): Promise<TokenResponse> {
  const presented = require(body, 'refresh_token');
  const digest = sha256Hex(presented);
  const now = deps.clock.now();
  const [row] = await deps.db
    .select({ token: oauthRefreshTokens, authorization: oauthAuthorizations })
    .from(oauthRefreshTokens)
    .innerJoin(oauthAuthorizations, eq(oauthAuthorizations.id, oauthRefreshTokens.authorizationId))
    .where(and(eq(oauthRefreshTokens.digest, digest), eq(oauthAuthorizations.instanceId, instance.id)));
  if (!row || row.authorization.applicationId !== app.id) throw oauthError('invalid_grant', 'The refresh token is invalid.');
  const { token, authorization } = row;
  if (authorization.revokedAt !== null) throw oauthError('invalid_grant', 'The refresh token has been revoked.');
  const reused = async () => {
    await revokeAuthorizations(deps.db, now, [authorization.id]);
    return oauthError('invalid_grant', 'The refresh token was already used; every token of this grant is revoked.');
  };
  if (rotationState(token.rotatedAt, now) === 'reused') throw await reused();
  if (token.expiresAt <= now) throw oauthError('invalid_grant', 'The refresh token has expired.');
  const granted = parseScope(authorization.scope);
  const asked = body.scope === undefined ? granted : parseScope(body.scope);
  if (asked.some((s) => !granted.includes(s))) throw oauthError('invalid_scope', 'A refresh may only narrow the granted scope.');

  const successor = refreshSuccessorOf(deps, presented);
  await deps.db.transaction(async (tx) => {
    // Rotates only a current token; a concurrent refresh of the same one finds it rotated and shares its successor.
    await tx
      .update(oauthRefreshTokens)
      .set({ rotatedAt: now })
      .where(and(eq(oauthRefreshTokens.digest, digest), isNull(oauthRefreshTokens.rotatedAt)));
    await issueRefreshToken(tx, now, authorization.id, successor);
  });
  return userTokens(deps, instance, app, {
    authorizationId: authorization.id,
    userId: authorization.userId,
    scope: asked.join(' '),
    authTime: authorization.authTime,
    nonce: null,
    refreshToken: successor,
    context: authorization.context,
  });
}

/** RFC 6749 §4.4: a confidential app acting for itself; its own (non-OIDC) scopes only, no ID token. */
async function clientCredentials(deps: D, instance: InstanceContext, app: ApplicationRow, body: TokenBody): Promise<TokenResponse> {
  if (app.public) throw oauthError('unauthorized_client', 'A public client cannot use client_credentials.');
  const allowed = app.scopes.filter((s) => !USER_SCOPES.has(s));
  const asked = body.scope === undefined ? allowed : parseScope(body.scope);
  const refused = asked.find((s) => !allowed.includes(s));
  if (refused !== undefined) throw oauthError('invalid_scope', `The client may not ask for ${refused} with client_credentials.`);
  const scope = asked.join(' ');
  const access = await signAccessToken(deps, instance, { clientId: app.id, subject: app.id, scope, authorizationId: null });
  return { access_token: access.token, token_type: 'Bearer', expires_in: access.expiresIn, scope };
}

/** RFC 8628 §3.4: the device polls with its device_code until the user answered on the verification page. */
async function deviceCode(deps: D, instance: InstanceContext, app: ApplicationRow, body: TokenBody): Promise<TokenResponse> {
  const issued = await pollDeviceCode(deps, instance, app, require(body, 'device_code'));
  return userTokens(deps, instance, app, { ...issued, nonce: null });
}

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

const GRANTS = {
  authorization_code: exchangeCode,
  refresh_token: refresh,
  client_credentials: clientCredentials,
  [DEVICE_CODE_GRANT]: deviceCode,
} as const;
export const GRANT_TYPES = Object.keys(GRANTS);

async function token(deps: D, auth: OidcAuth, body: TokenBody, request: RequestInfo) {
  const grantType = require(body, 'grant_type');
  const grant = GRANTS[grantType as keyof typeof GRANTS] as (typeof GRANTS)[keyof typeof GRANTS] | undefined;
  if (!grant || !Object.hasOwn(GRANTS, grantType)) throw oauthError('unsupported_grant_type', `grant_type ${grantType} is not supported.`);
  const { app } = await authenticateClient(deps, auth.instance.id, auth.authorization, body, request);
  await enforceLimit(deps, 'oidc', tokenLimits(deps).perClient, `${auth.instance.id}:${app.id}`);
  return jsonResult(await grant(deps, auth.instance, app, body), 200, NO_STORE);
}

export const tokenGrants = {
  issue: endpoint<OidcAuth, TokenBody>({
    summary: 'OAuth 2.0 token endpoint: authorization_code (PKCE), refresh_token, client_credentials, device_code (RFC 8628)',
    // The tokens are their own record; failed client authentications are audited by the domain.
    audit: { unaudited: 'token issuance; client authentication failures are audited by the domain' },
    body: tokenBody,
    response: oauthTokenResponseSchema,
    handle: ({ deps, auth, body, request }) => token(deps, auth, body, request),
  }),
};
