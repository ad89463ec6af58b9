import { and, eq, gt, isNull, lt } from 'drizzle-orm';
import { decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { ltiIdentities, ltiLaunchStates, users, type LtiSessionContext } from '../db/schema';
import { constantTimeEqual, sha256Hex } from '../crypto/secrets';
import { ltiPlatformContext, type AuditContext } from '../http/actor';
import { AppError, isAppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { findClient } from '../sessions/clients';
import { completeSignIn } from '../auth/complete-sign-in';
import { createUserBody } from '../users/schemas';
import { createUser } from '../users/users';
import { platformKeys } from './jwks';
import { joinContextOrganization } from './organizations';
import { findPlatformForLogin, launchUrlOf, loadPlatform, type PlatformRow } from './platforms';
import { REASONS } from './reasons';
import type { LoginParams } from './schemas';

/**
 * LTI 1.3 (IMS LTI Core 1.3, IMS Security Framework 1.0): the platform's OIDC third-party
 * initiated login, then its signed id_token form-posted to the launch URL. Every refusal is
 * 400 LTI_LAUNCH_INVALID with a `meta.reason` (reasons.ts); it is audited and creates nothing.
 */

type D = Pick<Deps, 'db' | 'clock' | 'config' | 'dns' | 'caches' | 'cipher' | 'logger' | 'passwords'>;
type Reason = (typeof REASONS)[keyof typeof REASONS];

export const STATE_TTL_MS = 10 * 60_000;
/** Clock skew allowed on exp, iat and nbf. */
const CLOCK_SKEW_SECONDS = 60;
/** An id_token issued longer ago than this is refused even if its exp is later. */
const MAX_TOKEN_AGE_SECONDS = 60 * 60;

const LTI = 'https://purl.imsglobal.org/spec/lti/claim';
const LTI_CLAIMS = {
  messageType: `${LTI}/message_type`,
  version: `${LTI}/version`,
  deploymentId: `${LTI}/deployment_id`,
  targetLinkUri: `${LTI}/target_link_uri`,
  resourceLink: `${LTI}/resource_link`,
  context: `${LTI}/context`,
  roles: `${LTI}/roles`,
} as const;

const refuse = (reason: Reason, message: string) => new AppError('LTI_LAUNCH_INVALID', { message, meta: { reason } });

const newSecret = () => randomBytes(32).toString('base64url');

/** The cookie that binds a login's state to the browser; named after the state, so concurrent launches (several iframes) do not collide. */
export const stateCookieName = (state: string) => `lti_state_${sha256Hex(state).slice(0, 16)}`;

export interface LoginResult {
  location: string;
  state: string;
}

/**
 * Login initiation: finds the registration, checks the target_link_uri, stores a fresh state
 * and nonce and answers where to send the browser (the platform's authorization endpoint).
 */
export async function initiateLogin(
  deps: D,
  instance: InstanceContext,
  p: LoginParams,
  servedFapiUrl: string,
  ctx: AuditContext,
): Promise<LoginResult> {
  const { platform, ambiguous } = await findPlatformForLogin(deps.db, instance.id, p.iss, p.client_id);
  if (!platform) {
    const err = ambiguous
      ? refuse(REASONS.platform_ambiguous, 'Several registrations share this issuer; the platform must send client_id.')
      : refuse(REASONS.platform_unknown, 'No LTI platform is registered with this issuer and client_id.');
    await recordFailure(deps, instance.id, null, err, ctx, 'lti.login_failed', { issuer: p.iss, client_id: p.client_id ?? null });
    throw err;
  }
  if (!platform.targetLinkUris.includes(p.target_link_uri)) {
    const err = refuse(REASONS.target_link_uri_not_allowed, 'The target_link_uri is not registered for this platform.');
    await recordFailure(deps, instance.id, platform, err, ctx, 'lti.login_failed');
    throw err;
  }
  const state = newSecret();
  const nonce = newSecret();
  const now = deps.clock.now();
  // Expired states are void anyway; clearing them here keeps the table to the logins in flight.
  await deps.db.delete(ltiLaunchStates).where(lt(ltiLaunchStates.expiresAt, now));
  await deps.db.insert(ltiLaunchStates).values({
    stateDigest: sha256Hex(state),
    instanceId: instance.id,
    platformId: platform.id,
    nonce,
    targetLinkUri: p.target_link_uri,
    expiresAt: now + STATE_TTL_MS,
    createdAt: now,
  });
  const url = new URL(platform.authorizationEndpoint);
  const params: Record<string, string | undefined> = {
    scope: 'openid',
    response_type: 'id_token',
    response_mode: 'form_post',
    prompt: 'none',
    client_id: platform.clientId,
    redirect_uri: launchUrlOf(servedFapiUrl),
    login_hint: p.login_hint,
    lti_message_hint: p.lti_message_hint,
    state,
    nonce,
  };
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  return { location: url.toString(), state };
}

/** The LTI claims a resource link launch must carry; the rest of the token is read leniently. */
const str = (max: number) => z.string().min(1).max(max);
const launchClaims = z.object({
  sub: str(255),
  nonce: str(512),
  email: z.string().max(320).optional().catch(undefined),
  given_name: z.string().max(256).optional().catch(undefined),
  family_name: z.string().max(256).optional().catch(undefined),
  name: z.string().max(512).optional().catch(undefined),
  picture: z.string().max(2048).optional().catch(undefined),
  [LTI_CLAIMS.context]: z
    .object({ id: str(255), title: z.string().max(512).optional(), label: z.string().max(255).optional() })
    .optional()
    .catch(undefined),
  [LTI_CLAIMS.roles]: z.array(z.string().max(512)).max(100).catch([]),
});

function classifyJoseError(e: unknown): AppError {
  if (e instanceof joseErrors.JWTExpired) return refuse(REASONS.token_expired, 'The id_token has expired.');
  if (e instanceof joseErrors.JWTClaimValidationFailed) {
    if (e.claim === 'iss') return refuse(REASONS.issuer_mismatch, 'The id_token was not issued by this platform.');
    if (e.claim === 'aud') return refuse(REASONS.audience_mismatch, 'The id_token is not addressed to this tool’s client_id.');
    if (e.claim === 'nbf' || e.claim === 'iat') return refuse(REASONS.token_not_yet_valid, 'The id_token is not valid yet, or too old.');
    return refuse(REASONS.id_token_malformed, `The id_token's ${e.claim} claim is not valid.`);
  }
  if (e instanceof joseErrors.JWKSNoMatchingKey)
    return refuse(REASONS.key_unknown, 'The id_token is signed with a key the platform does not publish.');
  if (e instanceof joseErrors.JWSSignatureVerificationFailed)
    return refuse(REASONS.signature_invalid, 'The id_token’s signature does not verify.');
  return refuse(REASONS.signature_invalid, 'The id_token could not be verified.');
}

interface VerifiedLaunch {
  platform: PlatformRow;
  stateDigest: string;
  claims: JWTPayload & z.output<typeof launchClaims>;
  deploymentId: string;
  targetLinkUri: string;
  resourceLink: { id: string; title: string | null };
}

/**
 * Every check of the launch, in an order that never trusts an unverified claim: the state
 * names the platform; the token's signature (platform JWKS), iss, aud/azp, exp/iat, the
 * nonce issued with that state, then the LTI claims against the registration.
 */
async function verifyLaunch(
  deps: D,
  instance: InstanceContext,
  idToken: string,
  state: string,
): Promise<{ platform: PlatformRow | null; result: VerifiedLaunch | AppError }> {
  const now = deps.clock.now();
  const stateDigest = sha256Hex(state);
  const [row] = await deps.db
    .select()
    .from(ltiLaunchStates)
    .where(and(eq(ltiLaunchStates.stateDigest, stateDigest), eq(ltiLaunchStates.instanceId, instance.id)));
  if (!row || row.expiresAt <= now)
    return {
      platform: null,
      result: refuse(REASONS.state_invalid, 'The state is unknown or has expired; start the launch again from the platform.'),
    };
  const platform = await loadPlatform(deps.db, instance.id, row.platformId);
  const fail = (e: AppError) => ({ platform, result: e });
  if (row.usedAt !== null) return fail(refuse(REASONS.nonce_replayed, 'This launch was already used; its state and nonce are single use.'));

  let kid: string | undefined;
  let alg: string | undefined;
  try {
    ({ kid, alg } = decodeProtectedHeader(idToken));
    decodeJwt(idToken);
  } catch {
    return fail(refuse(REASONS.id_token_malformed, 'The id_token is not a signed JWT.'));
  }
  if (alg !== 'RS256') return fail(refuse(REASONS.signature_invalid, 'The id_token must be signed with RS256.'));
  if (!kid) return fail(refuse(REASONS.key_unknown, 'The id_token names no key (kid).'));

  let payload: JWTPayload;
  try {
    const keys = await platformKeys(deps, platform, instance.environment, kid);
    ({ payload } = await jwtVerify(idToken, keys, {
      algorithms: ['RS256'],
      issuer: platform.issuer,
      audience: platform.clientId,
      clockTolerance: CLOCK_SKEW_SECONDS,
      maxTokenAge: MAX_TOKEN_AGE_SECONDS,
      currentDate: new Date(now),
      requiredClaims: ['iss', 'aud', 'sub', 'exp', 'iat', 'nonce'],
    }));
  } catch (e) {
    return fail(isAppError(e) ? e : classifyJoseError(e));
  }
  if (typeof payload.iat === 'number' && payload.iat > Math.floor(now / 1000) + CLOCK_SKEW_SECONDS) {
    return fail(refuse(REASONS.token_not_yet_valid, 'The id_token was issued in the future.'));
  }
  const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
  const azp = payload.azp;
  if ((aud.length > 1 || azp !== undefined) && azp !== platform.clientId) {
    return fail(refuse(REASONS.azp_mismatch, 'An id_token for several audiences must name this tool’s client_id in azp.'));
  }
  const parsed = launchClaims.safeParse(payload);
  if (!parsed.success) return fail(refuse(REASONS.id_token_malformed, 'The id_token lacks sub or nonce, or they are malformed.'));
  const claims = { ...payload, ...parsed.data };
  if (!constantTimeEqual(claims.nonce, row.nonce))
    return fail(refuse(REASONS.nonce_invalid, 'The id_token’s nonce is not the one issued for this state.'));

  const deploymentId = payload[LTI_CLAIMS.deploymentId];
  if (typeof deploymentId !== 'string' || !platform.deploymentIds.includes(deploymentId)) {
    return fail(refuse(REASONS.deployment_not_allowed, 'The deployment_id is not on this platform’s allowlist.'));
  }
  if (payload[LTI_CLAIMS.messageType] !== 'LtiResourceLinkRequest') {
    return fail(refuse(REASONS.message_type_unsupported, 'Only LtiResourceLinkRequest launches are supported.'));
  }
  if (payload[LTI_CLAIMS.version] !== '1.3.0') return fail(refuse(REASONS.version_unsupported, 'Only LTI version 1.3.0 is supported.'));
  const link = z.object({ id: str(255), title: z.string().max(512).optional() }).safeParse(payload[LTI_CLAIMS.resourceLink]);
  if (!link.success) return fail(refuse(REASONS.resource_link_missing, 'The launch has no resource_link id.'));
  const targetLinkUri = payload[LTI_CLAIMS.targetLinkUri];
  if (typeof targetLinkUri !== 'string' || !platform.targetLinkUris.includes(targetLinkUri)) {
    return fail(refuse(REASONS.target_link_uri_not_allowed, 'The target_link_uri is not registered for this platform.'));
  }
  return {
    platform,
    result: {
      platform,
      stateDigest,
      claims,
      deploymentId,
      targetLinkUri,
      resourceLink: { id: link.data.id, title: link.data.title ?? null },
    },
  };
}

/** A refusal, audited on its own (nothing else is written). */
async function recordFailure(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  platform: PlatformRow | null,
  err: AppError,
  ctx: AuditContext,
  action: string,
  details: Record<string, unknown> = {},
) {
  await audit(deps, {
    instanceId,
    ...(platform ? ltiPlatformContext(platform.id, ctx) : ctx),
    action,
    target: platform?.id ?? null,
    details: { reason: err.meta.reason, ...details },
  });
}

/** The user of an LTI identity (iss + sub), created just in time on its first launch. */
async function launchUser(d: D, instance: InstanceContext, v: VerifiedLaunch, ctx: AuditContext) {
  const now = d.clock.now();
  const { claims, platform } = v;
  const roles = claims[LTI_CLAIMS.roles];
  const picture = claims.picture ?? null;
  const [known] = await d.db
    .select({ userId: ltiIdentities.userId, banned: users.banned })
    .from(ltiIdentities)
    .innerJoin(users, eq(users.id, ltiIdentities.userId))
    .where(
      and(eq(ltiIdentities.instanceId, instance.id), eq(ltiIdentities.issuer, platform.issuer), eq(ltiIdentities.subject, claims.sub)),
    );
  if (known) {
    if (known.banned) throw refuse(REASONS.user_banned, 'This user is banned and cannot sign in.');
    await d.db
      .update(ltiIdentities)
      .set({ roles, picture, platformId: platform.id, updatedAt: now })
      .where(
        and(eq(ltiIdentities.instanceId, instance.id), eq(ltiIdentities.issuer, platform.issuer), eq(ltiIdentities.subject, claims.sub)),
      );
    return { userId: known.userId, created: false, emailSkipped: false };
  }
  // Names and the address come from the platform: each is kept only if it passes our own rules.
  const shape = createUserBody.shape;
  const ok = <T>(schema: z.ZodType<T>, v: unknown) => {
    const r = schema.safeParse(v);
    return r.success ? r.data : undefined;
  };
  const firstName = ok(shape.first_name, claims.given_name ?? claims.name);
  const lastName = ok(shape.last_name, claims.family_name);
  const email = ok(shape.email_address, claims.email);
  const input = { first_name: firstName, last_name: lastName };
  const opts = { verificationStrategy: 'lti', audit: ctx, externalIdentity: true };
  let emailSkipped = false;
  let user;
  try {
    user = await createUser(d, instance.id, email ? { ...input, email_address: email } : input, opts);
  } catch (e) {
    // An address another user holds is not theirs to claim from a platform: the learner gets an account without it.
    if (!(isAppError(e) && e.meta.reason === 'taken')) throw e;
    emailSkipped = true;
    user = await createUser(d, instance.id, input, opts);
  }
  await d.db.insert(ltiIdentities).values({
    instanceId: instance.id,
    issuer: platform.issuer,
    subject: claims.sub,
    userId: user.id,
    platformId: platform.id,
    picture,
    roles,
    createdAt: now,
    updatedAt: now,
  });
  return { userId: user.id, created: true, emailSkipped };
}

export interface LaunchResult {
  location: string;
  sessionId: string;
  userId: string;
  /** The client token when a new client was made (the cookie to set). */
  clientToken: string;
}

/**
 * The launch: verifies the id_token, then in one transaction consumes the state (single
 * use), finds or creates the user, creates the session with its LTI context on the
 * browser's client and audits it. Answers where to land and the client token for the cookie.
 */
export async function completeLaunch(
  deps: Deps,
  instance: InstanceContext,
  input: { idToken: string; state: string; stateCookie: string | undefined; clientToken: string | undefined },
  ctx: AuditContext,
): Promise<LaunchResult> {
  const { platform, result } = await verifyLaunch(deps, instance, input.idToken, input.state);
  // A browser that kept the state cookie must present the state it was given; one whose iframe blocks cookies relies on the stored state alone.
  const cookieMismatch = input.stateCookie !== undefined && !constantTimeEqual(input.stateCookie, input.state);
  const refusal =
    result instanceof AppError
      ? result
      : cookieMismatch
        ? refuse(REASONS.state_invalid, 'The state does not belong to this browser.')
        : null;
  if (refusal || result instanceof AppError) {
    const err = refusal ?? (result as AppError);
    await recordFailure(deps, instance.id, platform, err, ctx, 'lti.launch_failed');
    throw err;
  }
  const v = result;
  const platformCtx = ltiPlatformContext(v.platform.id, ctx);
  try {
    return await deps.db.transaction(async (tx) => {
      const d = { ...deps, db: tx };
      const now = deps.clock.now();
      const [consumed] = await tx
        .update(ltiLaunchStates)
        .set({ usedAt: now })
        .where(and(eq(ltiLaunchStates.stateDigest, v.stateDigest), isNull(ltiLaunchStates.usedAt), gt(ltiLaunchStates.expiresAt, now)))
        .returning({ stateDigest: ltiLaunchStates.stateDigest });
      if (!consumed) throw refuse(REASONS.nonce_replayed, 'This launch was already used; its state and nonce are single use.');

      const { userId, created, emailSkipped } = await launchUser(d, instance, v, platformCtx);
      const context = v.claims[LTI_CLAIMS.context];
      const lti: LtiSessionContext = {
        platform_id: v.platform.id,
        issuer: v.platform.issuer,
        deployment_id: v.deploymentId,
        context: context ? { id: context.id, title: context.title ?? null, label: context.label ?? null } : null,
        resource_link: v.resourceLink,
        roles: v.claims[LTI_CLAIMS.roles],
      };
      const presented = input.clientToken ? (await findClient(d, instance, input.clientToken)).client : null;
      const organizationId =
        v.platform.organizationsFromContexts && lti.context
          ? await joinContextOrganization(d, instance, { issuer: v.platform.issuer, context: lti.context, userId, roles: lti.roles })
          : null;
      const end = await completeSignIn(d, instance, {
        way: 'lti',
        userId,
        client: presented,
        presentedClient: presented !== null,
        lti,
        lastActiveOrganizationId: organizationId,
        auditCtx: platformCtx,
      });
      const session = { id: end.sessionId };
      const clientToken = end.clientToken ?? input.clientToken;
      await audit(d, {
        instanceId: instance.id,
        ...platformCtx,
        action: 'lti.launch',
        target: v.platform.id,
        details: {
          user_id: userId,
          session_id: session.id,
          user_created: created,
          ...(emailSkipped ? { email_skipped: 'taken' } : {}),
          deployment_id: v.deploymentId,
          context_id: lti.context?.id ?? null,
          organization_id: organizationId,
          resource_link_id: v.resourceLink.id,
          state_cookie: input.stateCookie !== undefined,
        },
      });
      return { location: v.targetLinkUri, sessionId: session.id, userId, clientToken: clientToken! };
    });
  } catch (e) {
    if (isAppError(e) && e.code === 'LTI_LAUNCH_INVALID') await recordFailure(deps, instance.id, v.platform, e, ctx, 'lti.launch_failed');
    throw e;
  }
}
