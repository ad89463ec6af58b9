import { and, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { oauthApplications, oauthInitialAccessTokens } from '../db/schema';
import { newId } from '../db/ids';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import { isAppError } from '../http/errors';
import { checkJwksUri } from '../http/remote-jwks';
import type { RequestOrigin } from '../http/actor';
import type { InstanceContext } from '../instances/instances';
import { CLIENT_SECRET_PREFIX, forgetApplication, loadApplication, redirectUriProblem, type ApplicationRow } from './applications';
import { oauthError } from './errors';
import { REQUEST_OBJECT_ALGS } from './request-object';
import { OIDC_SCOPES, SCOPE_TOKEN_RE } from './scopes';

/**
 * Dynamic Client Registration (RFC 7591, OpenID Connect Dynamic Client Registration 1.0) and its
 * management protocol (RFC 7592). `POST {issuer}/oauth2/register` with an initial access token
 * the operator created (Bearer) registers an OAuth application from the client's metadata; the
 * answer carries a registration access token (kept as its digest) that reads, replaces and
 * deletes that one application at `{issuer}/oauth2/register/{client_id}`.
 */

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'caches'>;
type W = D & Pick<Deps, 'cacheInvalidation'>;

export const INITIAL_ACCESS_TOKEN_PREFIX = 'iat_';
const REGISTRATION_TOKEN_PREFIX = 'rat_';

const DEVICE_CODE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';
/** The grants a registered client may name (the token endpoint's). */
const GRANT_TYPES = ['authorization_code', 'refresh_token', 'client_credentials', DEVICE_CODE_GRANT] as const;
const AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'none'] as const;
const LOCALIZABLE = ['client_name', 'logo_uri', 'client_uri', 'policy_uri', 'tos_uri'] as const;
/** Values the provider cannot honour: a registration naming one is refused rather than silently weakened. */
const UNSUPPORTED_VALUES: Record<string, readonly string[]> = {
  id_token_signed_response_alg: ['RS256'],
  subject_type: ['public'],
  request_object_signing_alg: REQUEST_OBJECT_ALGS,
  userinfo_signed_response_alg: ['RS256'],
};
/** Metadata asking for encryption or signatures the provider does not produce. */
const UNSUPPORTED_FIELDS = [
  'id_token_encrypted_response_alg',
  'id_token_encrypted_response_enc',
  'userinfo_encrypted_response_alg',
  'userinfo_encrypted_response_enc',
  'request_object_encryption_alg',
  'request_object_encryption_enc',
  'authorization_signed_response_alg',
];

const MAX_URIS = 20;
const MAX_STRING = 2048;

/** The metadata as registered: what RFC 7592 reads answer (the columns hold what the provider acts on). */
export interface ClientMetadata {
  redirect_uris: string[];
  post_logout_redirect_uris: string[];
  response_types: string[];
  grant_types: string[];
  token_endpoint_auth_method: (typeof AUTH_METHODS)[number];
  application_type: 'web' | 'native';
  client_name?: string;
  scope: string;
  contacts?: string[];
  jwks_uri?: string;
  jwks?: { keys: Record<string, unknown>[] };
  backchannel_logout_uri?: string;
  backchannel_logout_session_required: boolean;
  id_token_signed_response_alg: 'RS256';
  subject_type: 'public';
  software_id?: string;
  software_version?: string;
  /** RS256: UserInfo answers as a signed JWT (OIDC Core §5.3.2). */
  userinfo_signed_response_alg?: 'RS256';
  [localized: string]: unknown;
}

const bad = (description: string) => oauthError('invalid_client_metadata', description);
const badRedirect = (description: string) => oauthError('invalid_redirect_uri', description);

function str(m: Record<string, unknown>, key: string, max = MAX_STRING): string | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max) throw bad(`${key} is a non-empty string of at most ${max} characters.`);
  return v;
}

function strings(m: Record<string, unknown>, key: string, fail = bad): string[] | undefined {
  const v = m[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.length > MAX_URIS || v.some((s) => typeof s !== 'string' || s.length === 0 || s.length > MAX_STRING))
    throw fail(`${key} is an array of at most ${MAX_URIS} non-empty strings.`);
  return [...new Set(v as string[])];
}

function parseUrl(raw: string): URL | null {
  try {
    return new URL(raw);
  } catch {
    return null;
  }
}

/** logo_uri, client_uri, policy_uri, tos_uri: an absolute http(s) URL (RFC 7591 §2). */
function webUrl(key: string, raw: string): string {
  const url = parseUrl(raw);
  if (!url || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.username || url.password)
    throw bad(`${key} is an absolute http or https URL.`);
  return raw;
}

function checkRegisteredRedirectUri(raw: string, applicationType: 'web' | 'native', fail = badRedirect): string {
  const problem = redirectUriProblem(raw, applicationType);
  if (problem) throw fail(problem);
  return raw;
}

/**
 * Client metadata (RFC 7591 §2, OIDC Registration §2) checked and given its defaults. Unknown
 * fields are ignored (RFC 7591 §2); a value the provider cannot honour is refused with
 * `invalid_client_metadata`, a bad redirect URI with `invalid_redirect_uri` (§3.2.2).
 */
async function parseClientMetadata(
  deps: Pick<Deps, 'config'>,
  instance: Pick<InstanceContext, 'environment'>,
  input: unknown,
): Promise<ClientMetadata> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw bad('The body is a JSON object of client metadata.');
  const m = input as Record<string, unknown>;
  if (m.software_statement !== undefined) throw oauthError('invalid_software_statement', 'Software statements are not accepted.');
  for (const f of UNSUPPORTED_FIELDS) if (m[f] !== undefined && m[f] !== null) throw bad(`${f} is not supported.`);
  for (const [f, allowed] of Object.entries(UNSUPPORTED_VALUES)) {
    const v = m[f];
    if (v !== undefined && v !== null && (typeof v !== 'string' || !allowed.includes(v)))
      throw bad(`${f} must be one of: ${allowed.join(', ')}.`);
  }

  const applicationType = m.application_type ?? 'web';
  if (applicationType !== 'web' && applicationType !== 'native') throw bad('application_type is web or native.');

  const responseTypes = strings(m, 'response_types') ?? ['code'];
  for (const r of responseTypes) if (r !== 'code') throw bad(`response_type ${r} is not supported (only code).`);
  const grantTypes = strings(m, 'grant_types') ?? ['authorization_code'];
  for (const g of grantTypes)
    if (!(GRANT_TYPES as readonly string[]).includes(g)) throw bad(`grant_type ${g} is not supported (${GRANT_TYPES.join(', ')}).`);
  // RFC 7591 §2.1: the code response type and the authorization_code grant go together.
  if (responseTypes.includes('code') !== grantTypes.includes('authorization_code'))
    throw bad('response_types code and grant_types authorization_code are registered together.');

  const method = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof method !== 'string' || !(AUTH_METHODS as readonly string[]).includes(method))
    throw bad(`token_endpoint_auth_method is one of: ${AUTH_METHODS.join(', ')}.`);
  if (method === 'none' && grantTypes.includes('client_credentials')) throw bad('A public client (none) cannot use client_credentials.');

  const redirectUris = (strings(m, 'redirect_uris', badRedirect) ?? []).map((u) => checkRegisteredRedirectUri(u, applicationType));
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0)
    throw badRedirect('redirect_uris is required for the authorization_code grant.');
  const postLogout = (strings(m, 'post_logout_redirect_uris') ?? []).map((u) => checkRegisteredRedirectUri(u, applicationType, bad));

  const scope = str(m, 'scope', 4096);
  const scopes = scope === undefined ? [...OIDC_SCOPES] : [...new Set(scope.split(' ').filter(Boolean))];
  if (scopes.length === 0 || scopes.length > 50 || scopes.some((s) => !SCOPE_TOKEN_RE.test(s)))
    throw bad('scope is a space-separated list of at most 50 scope tokens.');

  if (m.jwks !== undefined && m.jwks !== null && m.jwks_uri !== undefined && m.jwks_uri !== null)
    throw bad('jwks and jwks_uri are exclusive (RFC 7591 §2).');
  const out: ClientMetadata = {
    redirect_uris: redirectUris,
    post_logout_redirect_uris: postLogout,
    response_types: responseTypes,
    grant_types: grantTypes,
    token_endpoint_auth_method: method as ClientMetadata['token_endpoint_auth_method'],
    application_type: applicationType,
    scope: scopes.join(' '),
    backchannel_logout_session_required: false,
    id_token_signed_response_alg: 'RS256',
    subject_type: 'public',
  };
  const jwksUri = str(m, 'jwks_uri');
  if (jwksUri !== undefined) out.jwks_uri = outbound(deps, instance, 'jwks_uri', jwksUri);
  if (m.jwks !== undefined && m.jwks !== null) {
    const keys = (m.jwks as { keys?: unknown }).keys;
    if (typeof m.jwks !== 'object' || !Array.isArray(keys) || keys.length === 0 || keys.length > 10)
      throw bad('jwks is a JSON Web Key Set with 1 to 10 keys.');
    if (keys.some((k) => typeof k !== 'object' || k === null || Array.isArray(k) || 'd' in k || 'k' in k))
      throw bad('jwks holds public keys only.');
    out.jwks = { keys: keys as Record<string, unknown>[] };
  }
  const logout = str(m, 'backchannel_logout_uri');
  if (logout !== undefined) {
    if (logout.includes('#')) throw bad('backchannel_logout_uri has no fragment.');
    out.backchannel_logout_uri = outbound(deps, instance, 'backchannel_logout_uri', logout);
  }
  if (m.backchannel_logout_session_required !== undefined) {
    if (typeof m.backchannel_logout_session_required !== 'boolean') throw bad('backchannel_logout_session_required is a boolean.');
    out.backchannel_logout_session_required = m.backchannel_logout_session_required;
  }
  // Human-readable values, with their language-tagged variants (RFC 7591 §2.2: `client_name#fr`).
  for (const key of Object.keys(m)) {
    const [base, tag, ...rest] = key.split('#');
    if (!(LOCALIZABLE as readonly string[]).includes(base!) || rest.length > 0) continue;
    if (tag !== undefined && !/^[A-Za-z]{1,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) throw bad(`${key} has no valid language tag.`);
    const value = str(m, key, base === 'client_name' ? 256 : MAX_STRING);
    if (value !== undefined) out[key] = base === 'client_name' ? value : webUrl(key, value);
  }
  const contacts = strings(m, 'contacts');
  if (contacts) out.contacts = contacts;
  const softwareId = str(m, 'software_id', 256);
  if (softwareId) out.software_id = softwareId;
  const softwareVersion = str(m, 'software_version', 256);
  if (softwareVersion) out.software_version = softwareVersion;
  if (m.request_object_signing_alg) out.request_object_signing_alg = m.request_object_signing_alg;
  if (m.userinfo_signed_response_alg === 'RS256') out.userinfo_signed_response_alg = 'RS256';
  return out;
}

/** A jwks_uri or backchannel_logout_uri the instance may reach (the SSRF guard's policy), else invalid_client_metadata. */
function outbound(deps: Pick<Deps, 'config'>, instance: Pick<InstanceContext, 'environment'>, key: string, raw: string) {
  try {
    return checkJwksUri(deps.config, instance.environment, raw, key);
  } catch (e) {
    if (isAppError(e)) throw bad(`${key}: ${e.message}`);
    throw e;
  }
}

/** The columns an application takes from registered metadata. */
function columns(meta: ClientMetadata) {
  return {
    name: (meta.client_name ?? 'Dynamically registered client').slice(0, 256),
    redirectUris: meta.redirect_uris,
    postLogoutRedirectUris: meta.post_logout_redirect_uris,
    scopes: meta.scope.split(' '),
    deviceFlowEnabled: meta.grant_types.includes(DEVICE_CODE_GRANT),
    jwksUri: meta.jwks_uri ?? null,
    jwks: meta.jwks ?? null,
    backchannelLogoutUri: meta.backchannel_logout_uri ?? null,
    backchannelLogoutSessionRequired: meta.backchannel_logout_session_required,
    registrationMetadata: meta as Record<string, unknown>,
  };
}

const registrationClientUri = (instance: Pick<InstanceContext, 'fapiUrl'>, clientId: string) =>
  `${instance.fapiUrl}/oauth2/register/${clientId}`;

/** RFC 7591 §3.2.1 / RFC 7592 §3: the metadata, the client's identifiers and where to manage it. */
function clientInformation(
  instance: Pick<InstanceContext, 'fapiUrl'>,
  row: ApplicationRow,
  extra: { client_secret?: string | null; registration_access_token: string },
) {
  const meta = (row.registrationMetadata ?? {}) as Record<string, unknown>;
  return {
    ...meta,
    client_id: row.id,
    ...(extra.client_secret ? { client_secret: extra.client_secret } : {}),
    client_id_issued_at: Math.floor(row.createdAt / 1000),
    ...(row.public ? {} : { client_secret_expires_at: 0 }),
    registration_access_token: extra.registration_access_token,
    registration_client_uri: registrationClientUri(instance, row.id),
  };
}

/**
 * The initial access token of a registration request, if it is good now: not revoked, not
 * expired, uses left. Anything else is 401 invalid_token (RFC 6750 §3.1).
 */
async function usableInitialToken(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, token: string | null) {
  if (!token) throw oauthError('invalid_token', 'Registration needs an initial access token (Authorization: Bearer).', 401);
  const now = deps.clock.now();
  const [row] = await deps.db
    .select()
    .from(oauthInitialAccessTokens)
    .where(and(eq(oauthInitialAccessTokens.digest, sha256Hex(token)), eq(oauthInitialAccessTokens.instanceId, instanceId)));
  if (
    !row ||
    row.revokedAt !== null ||
    (row.expiresAt !== null && row.expiresAt <= now) ||
    (row.maxUses !== null && row.useCount >= row.maxUses)
  )
    throw oauthError('invalid_token', 'The initial access token is invalid, expired, revoked or used up.', 401);
  return row;
}

/** RFC 7591 §3: registers a client; its secret and registration access token are in this answer only. */
export async function registerClient(
  deps: D,
  instance: InstanceContext,
  initialToken: string | null,
  body: unknown,
  origin: RequestOrigin,
) {
  const token = await usableInitialToken(deps, instance.id, initialToken);
  const meta = await parseClientMetadata(deps, instance, body);
  const isPublic = meta.token_endpoint_auth_method === 'none';
  const secret = isPublic ? null : generateSecret(CLIENT_SECRET_PREFIX);
  const registrationToken = generateSecret(REGISTRATION_TOKEN_PREFIX);
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    // Counted in the transaction that registers: two racing registrations cannot both take a single-use token's last use.
    const [used] = await tx
      .update(oauthInitialAccessTokens)
      .set({ useCount: sql`${oauthInitialAccessTokens.useCount} + 1`, lastUsedAt: now })
      .where(
        and(
          eq(oauthInitialAccessTokens.id, token.id),
          isNull(oauthInitialAccessTokens.revokedAt),
          or(isNull(oauthInitialAccessTokens.expiresAt), gt(oauthInitialAccessTokens.expiresAt, now)),
          or(isNull(oauthInitialAccessTokens.maxUses), lt(oauthInitialAccessTokens.useCount, oauthInitialAccessTokens.maxUses)),
        ),
      )
      .returning({ id: oauthInitialAccessTokens.id });
    if (!used) throw oauthError('invalid_token', 'The initial access token is invalid, expired, revoked or used up.', 401);
    const [row] = await tx
      .insert(oauthApplications)
      .values({
        id: newId('oa'),
        instanceId: instance.id,
        ...columns(meta),
        public: isPublic,
        // A registered client has no operator to review its consent screen: users always see it.
        consentScreenEnabled: true,
        secretDigest: secret ? sha256Hex(secret) : null,
        registrationTokenDigest: sha256Hex(registrationToken),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        actor: `oauth_initial_access_token:${token.id}`,
        actorKind: 'oauth_client',
        ip: origin.ip,
        userAgent: origin.userAgent,
        action: 'oauth_application.registered',
        target: row!.id,
        details: { initial_access_token: token.id, token_endpoint_auth_method: meta.token_endpoint_auth_method },
      },
    );
    return clientInformation(instance, row!, { client_secret: secret, registration_access_token: registrationToken });
  });
}

/**
 * RFC 7592 §2: the application a registration access token manages. A wrong token, another
 * client's, or an application not registered dynamically is 401 invalid_token: nothing tells
 * whether the client_id exists.
 */
async function managedClient(deps: Pick<Deps, 'db'>, instanceId: string, clientId: string, token: string | null) {
  const fail = () => oauthError('invalid_token', 'The registration access token is invalid for this client.', 401);
  if (!token) throw fail();
  const row = await loadApplication(deps.db, instanceId, clientId).catch(() => null);
  if (!row || row.registrationTokenDigest === null || !constantTimeEqual(sha256Hex(token), row.registrationTokenDigest)) throw fail();
  return row;
}

/** RFC 7592 §2.1: the client's current registration (its secret is not repeated: it is kept only as a digest). */
export async function readRegistration(deps: Pick<Deps, 'db'>, instance: InstanceContext, clientId: string, token: string | null) {
  const row = await managedClient(deps, instance.id, clientId, token);
  return clientInformation(instance, row, { registration_access_token: token! });
}

const managementActor = (clientId: string, origin: RequestOrigin) => ({
  actor: `oauth_client:${clientId}`,
  actorKind: 'oauth_client' as const,
  ip: origin.ip,
  userAgent: origin.userAgent,
});

/**
 * RFC 7592 §2.2: the client's metadata replaced by the body's (omitted fields take their
 * defaults). The body names the same client_id, and its client_secret, if sent, is the current
 * one; the authentication method cannot switch between public and confidential.
 */
export async function updateRegistration(
  deps: W,
  instance: InstanceContext,
  clientId: string,
  token: string | null,
  body: unknown,
  origin: RequestOrigin,
) {
  const row = await managedClient(deps, instance.id, clientId, token);
  const sent = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>;
  if (sent.client_id !== clientId) throw oauthError('invalid_request', 'The body names this client’s client_id.');
  if (
    sent.client_secret !== undefined &&
    (typeof sent.client_secret !== 'string' ||
      row.secretDigest === null ||
      !constantTimeEqual(sha256Hex(sent.client_secret), row.secretDigest))
  )
    throw oauthError('invalid_request', 'client_secret is not this client’s secret.');
  const {
    client_id: _id,
    client_secret: _secret,
    registration_access_token: _rat,
    registration_client_uri: _uri,
    client_id_issued_at: _iat,
    client_secret_expires_at: _exp,
    ...metadata
  } = sent;
  const meta = await parseClientMetadata(deps, instance, metadata);
  if ((meta.token_endpoint_auth_method === 'none') !== row.public)
    throw bad('token_endpoint_auth_method cannot change between a public client (none) and a confidential one.');
  return deps.db.transaction(async (tx) => {
    const [updated] = await tx
      .update(oauthApplications)
      .set({ ...columns(meta), updatedAt: deps.clock.now() })
      .where(eq(oauthApplications.id, row.id))
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...managementActor(clientId, origin),
        action: 'oauth_application.updated',
        target: clientId,
        details: { via: 'registration_management', fields: Object.keys(metadata).sort().slice(0, 50) },
      },
    );
    forgetApplication(deps, instance.id, clientId);
    return clientInformation(instance, updated!, { registration_access_token: token! });
  });
}

/** RFC 7592 §2.3: the client deregisters itself (its grants and tokens go with it). */
export async function deleteRegistration(
  deps: W,
  instance: InstanceContext,
  clientId: string,
  token: string | null,
  origin: RequestOrigin,
) {
  await managedClient(deps, instance.id, clientId, token);
  await deps.db.transaction(async (tx) => {
    await tx.delete(oauthApplications).where(eq(oauthApplications.id, clientId));
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        ...managementActor(clientId, origin),
        action: 'oauth_application.deleted',
        target: clientId,
        details: { via: 'registration_management' },
      },
    );
  });
  forgetApplication(deps, instance.id, clientId);
}
