import { type KeyObject, verify as verifyRsa } from 'node:crypto';
import type { JWTPayload } from 'jose';
import type { Deps } from '../deps';
import type { LtiSessionContext } from '../db/schema';
import { AppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { billingClaims, claimsOfPlans, type EntitledPlan } from '../billing/subscriptions';
import { claimsOrg, orgClaims, orgClaimsOf } from './org-claims';
import { ALG, currentSigner, keyObjectOf, publicKeyFor, signRs256Jws } from '../signing/signing-keys';
import { and, eq } from 'drizzle-orm';
import { emailAddresses, users } from '../db/schema';
import { renderClaims, usesOrgShortcodes, type ClaimsUser } from '../instances/claims-template';
import { factorVerificationAge, hasSecondFactor, type FactorTimes } from './factor-verification';

type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>;

export interface SessionClaims extends JWTPayload {
  sid: string;
  sv: number;
  sts: string;
  azp?: string;
  act?: { sub: string };
  org_id?: string;
  org_role?: string;
  org_slug?: string;
  org_permissions?: string[];
  /** Plans of the user and active organization, compact: `u:<plan key>,o:<plan key>`. */
  pla?: string;
  /** Their features: `u:<feature>,…,o:<feature>,…`. */
  fea?: string;
  lti?: LtiSessionContext;
  /** Minutes since the session's first and second factor were proved (-1: the user has no second factor): Clerk's reverification claim (factor-verification.ts). */
  fva?: [number, number];
}

/** Signs a short-lived session JWT with the instance's current key. */
export async function signSessionJwt(
  deps: D,
  instance: InstanceContext,
  s: {
    id: string;
    userId: string;
    status: string;
    actor: { sub: string } | null;
    sessionsVersion: number;
    expireAt: number;
    azp?: string | null;
    lastActiveOrganizationId?: string | null;
    /** The LTI launch the session started from: its context, roles and resource link. */
    lti?: LtiSessionContext | null;
    /** The entitled plans of the user and the session's organization, when the caller read them already (refresh). */
    plans?: readonly EntitledPlan[];
    /** Seconds the token lives instead of the instance's session_token_lifetime_seconds (the BAPI's `expires_in_seconds`). */
    lifetime?: number;
    /** Whether the user has a second factor, when the caller read it already (`fva`); else read here. */
    withSecondFactor?: boolean;
  } & FactorTimes,
): Promise<{ jwt: string; expires_in: number }> {
  const signer = await currentSigner(deps, instance.id);
  const now = Math.floor(deps.clock.now() / 1000);
  // A jwt never outlives its session.
  const exp = Math.min(now + (s.lifetime ?? instance.settings.session_token_lifetime_seconds), Math.floor(s.expireAt / 1000));
  const lifetime = Math.max(0, exp - now);
  const withSecondFactor = s.withSecondFactor ?? (await hasSecondFactor(deps.db, s.userId));
  const claims: Record<string, unknown> = {
    sid: s.id,
    sv: s.sessionsVersion,
    sts: s.status,
    fva: factorVerificationAge(s, withSecondFactor, deps.clock.now()),
  };
  if (s.azp) claims.azp = s.azp;
  if (s.actor) claims.act = { sub: s.actor.sub };
  if (s.lti) claims.lti = s.lti;
  const template = instance.settings.session_token_claims;
  const activeOrgId = activeOrganizationId(instance, s);
  // A template that reads the organization ({{org.…}}) gets it with the built-in claims, in one query.
  const readsOrg = activeOrgId !== null && usesOrgShortcodes(template);
  const orgContext = readsOrg ? await claimsOrg(deps.db, instance.id, activeOrgId, s.userId) : null;
  const org = readsOrg
    ? orgContext && orgClaimsOf(orgContext)
    : activeOrgId && (await orgClaims(deps.db, instance.id, activeOrgId, s.userId));
  if (org) Object.assign(claims, org);
  const orgId = org ? org.org_id : null;
  // Plans read with the session (refresh) cover its organization; the org claim may be absent (not a member): then only the user's count.
  Object.assign(claims, s.plans ? claimsOfPlans(s.plans, s.userId, orgId) : await billingClaims(deps.db, instance.id, s.userId, orgId));
  // The instance's template adds its claims; built-in ones always win.
  if (Object.keys(template).length > 0) {
    const user = await claimsUser(deps.db, instance.id, s.userId);
    const custom = user ? renderClaims(template, { user, org: orgContext }) : null;
    if (custom) for (const [k, v] of Object.entries(custom)) if (!(k in claims)) claims[k] = v;
  }
  const jwt = await signWithSessionKey(signer, instance, claims, { sub: s.userId, iat: now, nbf: now, exp: now + lifetime });
  return { jwt, expires_in: lifetime };
}

/** The session's active organization, while the instance has organizations on. */
export const activeOrganizationId = (instance: Pick<InstanceContext, 'settings'>, s: { lastActiveOrganizationId?: string | null }) =>
  instance.settings.organizations_enabled ? (s.lastActiveOrganizationId ?? null) : null;

/** A JWT signed with the instance's session key (its kid in the JWKS), issued by the fapi_url: session and template tokens. */
export function signWithSessionKey(
  signer: Awaited<ReturnType<typeof currentSigner>>,
  instance: Pick<InstanceContext, 'fapiUrl'>,
  claims: JWTPayload,
  t: { sub: string; iat: number; nbf: number; exp: number; jti?: string },
): Promise<string> {
  // Claims first, then the registered ones in this order (as SignJWT's setters added them).
  const payload: Record<string, unknown> = { ...claims, iss: instance.fapiUrl, sub: t.sub, iat: t.iat, nbf: t.nbf, exp: t.exp };
  if (t.jti) payload.jti = t.jti;
  return Promise.resolve(signRs256Jws(signer.key, { alg: ALG, kid: signer.kid, typ: 'JWT' }, payload));
}

/** What a session token template reads of a user: one query, only when the instance has a template. */
export async function claimsUser(db: Deps['db'], instanceId: string, userId: string): Promise<ClaimsUser | null> {
  const [row] = await db
    .select({ user: users, email: emailAddresses.emailAddress, emailStatus: emailAddresses.verificationStatus })
    .from(users)
    .leftJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  if (!row) return null;
  const u = row.user;
  return {
    id: u.id,
    externalId: u.externalId,
    firstName: u.firstName,
    lastName: u.lastName,
    username: u.username,
    primaryEmail: row.email,
    emailVerified: row.emailStatus === 'verified',
    publicMetadata: u.publicMetadata,
    unsafeMetadata: u.unsafeMetadata,
    createdAt: u.createdAt,
  };
}

/**
 * Checks a session JWT's shape, issuer, key and signature, naming why it fails:
 * TOKEN_INVALID, TOKEN_WRONG_INSTANCE, TOKEN_UNKNOWN_KEY or TOKEN_EXPIRED.
 */
export async function verifySessionJwt(deps: D, instance: InstanceContext, token: string): Promise<SessionClaims> {
  const jws = decodeCompactJws(token);
  const kid = typeof jws.header.kid === 'string' ? jws.header.kid : null;
  // The signature is checked whenever one of our keys can: an unverified claim never decides
  // the answer for a token we could verify (a tampered payload is TOKEN_INVALID).
  const key = kid ? await publicKeyFor(deps, instance.id, kid) : null;
  if (!key) throw new AppError(jws.payload.iss !== instance.fapiUrl ? 'TOKEN_WRONG_INSTANCE' : 'TOKEN_UNKNOWN_KEY');
  return checkRs256(jws, keyObjectOf(key), instance.fapiUrl, Math.floor(deps.clock.now() / 1000));
}

const B64URL = /^[A-Za-z0-9_-]*$/;
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

interface CompactJws {
  signingInput: string;
  signature: string;
  header: Record<string, unknown>;
  payload: Record<string, unknown>;
}

/** A compact JWS's parts, its header and payload parsed once (TOKEN_INVALID when malformed). */
function decodeCompactJws(token: string): CompactJws {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) throw new AppError('TOKEN_INVALID');
  const [h, p, signature] = parts as [string, string, string];
  let header: unknown;
  let payload: unknown;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString('utf8'));
    payload = JSON.parse(Buffer.from(p, 'base64url').toString('utf8'));
  } catch {
    throw new AppError('TOKEN_INVALID');
  }
  const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (!isObject(header) || !isObject(payload)) throw new AppError('TOKEN_INVALID');
  return { signingInput: `${h}.${p}`, signature, header, payload };
}

/**
 * A compact RS256 JWS checked with node:crypto's synchronous verify (no WebCrypto job per
 * token: the authoritative verify is a hot path), then jose's claim rules as jwtVerify
 * applied them here: exactly alg RS256, no `crit` header, the issuer, `sub`/`sid`/`exp`/`iat`
 * present, `exp` in the future, `nbf` (if any) not in the future; no clock tolerance.
 */
function checkRs256({ signingInput, signature, header, payload }: CompactJws, key: KeyObject, issuer: string, now: number): SessionClaims {
  if (header.alg !== ALG || 'crit' in header || 'b64' in header) throw new AppError('TOKEN_INVALID');
  if (!verifyRsa('sha256', Buffer.from(signingInput), key, Buffer.from(signature, 'base64url'))) throw new AppError('TOKEN_INVALID');
  if (
    payload.iss !== issuer ||
    typeof payload.sub !== 'string' ||
    payload.sid === undefined ||
    !isNumber(payload.iat) ||
    !isNumber(payload.exp)
  ) {
    throw new AppError('TOKEN_INVALID');
  }
  if (payload.nbf !== undefined && (!isNumber(payload.nbf) || payload.nbf > now)) throw new AppError('TOKEN_INVALID');
  if (payload.exp <= now) throw new AppError('TOKEN_EXPIRED');
  return payload as SessionClaims;
}
