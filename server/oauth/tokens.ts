import { randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import type { Deps } from '../deps';
import type { InstanceContext } from '../instances/instances';
import { ALG, currentSigner, publicKeyFor, signRs256Jws } from '../signing/signing-keys';

type D = Pick<Deps, 'db' | 'clock' | 'cipher' | 'caches'>;

/** Lifetimes (seconds). Both stay under the signing keys' retention after rotation (65 min). */
const ACCESS_TOKEN_TTL_S = 900;
const ID_TOKEN_TTL_S = 3600;
export const ACCESS_TOKEN_TYP = 'at+jwt';

const seconds = (ms: number) => Math.floor(ms / 1000);

/**
 * An access token's `jti`: the authorization it belongs to (when a user authorized it),
 * then randomness — so introspection and userinfo find whether that authorization was
 * revoked without storing every token.
 */
const newJti = (authorizationId: string | null) => `${authorizationId ?? 'cc'}.${randomBytes(12).toString('base64url')}`;
export const authorizationOfJti = (jti: string): string | null => {
  const head = jti.split('.')[0]!;
  return head.startsWith('oaz_') ? head : null;
};

export interface AccessTokenClaims extends JWTPayload {
  client_id: string;
  scope: string;
  jti: string;
  sub: string;
  exp: number;
  iat: number;
}

/** RFC 9068 access token: `typ: at+jwt`, audience the issuer (no resource indicators yet). */
export async function signAccessToken(
  deps: D,
  instance: InstanceContext,
  t: { clientId: string; subject: string; scope: string; authorizationId: string | null; authTime?: number },
): Promise<{ token: string; expiresIn: number; jti: string }> {
  const signer = await currentSigner(deps, instance.id);
  const now = seconds(deps.clock.now());
  const jti = newJti(t.authorizationId);
  const claims: Record<string, unknown> = { client_id: t.clientId, scope: t.scope, jti };
  if (t.authTime !== undefined) claims.auth_time = seconds(t.authTime);
  const token = signRs256Jws(
    signer.key,
    { alg: ALG, kid: signer.kid, typ: ACCESS_TOKEN_TYP },
    { ...claims, iss: instance.fapiUrl, sub: t.subject, aud: instance.fapiUrl, iat: now, exp: now + ACCESS_TOKEN_TTL_S },
  );
  return { token, expiresIn: ACCESS_TOKEN_TTL_S, jti };
}

/** OIDC Core §2 ID token for `clientId`, with the user's claims it carries and how the user signed in (`acr`, `amr`, `sid`). */
export async function signIdToken(
  deps: D,
  instance: InstanceContext,
  t: {
    clientId: string;
    userId: string;
    authTime: number;
    nonce: string | null;
    claims: Record<string, unknown>;
    authentication: { acr: string; amr: string[]; sid: string | null } | null;
  },
): Promise<string> {
  const signer = await currentSigner(deps, instance.id);
  const now = seconds(deps.clock.now());
  const payload: Record<string, unknown> = { ...t.claims, auth_time: seconds(t.authTime), azp: t.clientId };
  if (t.nonce !== null) payload.nonce = t.nonce;
  if (t.authentication) {
    payload.acr = t.authentication.acr;
    if (t.authentication.amr.length > 0) payload.amr = t.authentication.amr;
    if (t.authentication.sid) payload.sid = t.authentication.sid;
  }
  return signRs256Jws(
    signer.key,
    { alg: ALG, kid: signer.kid, typ: 'JWT' },
    { ...payload, iss: instance.fapiUrl, sub: t.userId, aud: t.clientId, iat: now, exp: now + ID_TOKEN_TTL_S },
  );
}

/**
 * A UserInfo answer as a JWT (OIDC Core §5.3.2), for a client registered with
 * `userinfo_signed_response_alg: RS256`: the claims with `iss` and `aud` added, signed as ID tokens are.
 */
export async function signUserinfo(deps: D, instance: InstanceContext, t: { clientId: string; claims: Record<string, unknown> }) {
  const signer = await currentSigner(deps, instance.id);
  return signRs256Jws(signer.key, { alg: ALG, kid: signer.kid, typ: 'JWT' }, { ...t.claims, iss: instance.fapiUrl, aud: t.clientId });
}

/** The claims of a JWT signed by one of the instance's published keys, or null (any failure, expiry included unless allowed). */
async function verifyOwnJwt(
  deps: D,
  instance: InstanceContext,
  token: string,
  opts: { typ: string; audience?: string; allowExpired?: boolean },
) {
  let kid: string | undefined;
  let typ: string | undefined;
  try {
    ({ kid, typ } = decodeProtectedHeader(token));
  } catch {
    return null;
  }
  if (!kid || typ?.toLowerCase() !== opts.typ) return null;
  const key = await publicKeyFor(deps, instance.id, kid);
  if (!key) return null;
  try {
    const { payload } = await jwtVerify(token, key, {
      algorithms: [ALG],
      issuer: instance.fapiUrl,
      audience: opts.audience,
      currentDate: new Date(deps.clock.now()),
      // An expired id_token_hint still names who signs out (OIDC RP-Initiated Logout §2).
      clockTolerance: opts.allowExpired ? Number.MAX_SAFE_INTEGER : 0,
      typ: opts.typ,
    });
    return payload;
  } catch (e) {
    if (e instanceof joseErrors.JOSEError) return null;
    throw e;
  }
}

/** A well-formed, unexpired access token of this instance (revocation is checked by the caller). */
export async function verifyAccessToken(deps: D, instance: InstanceContext, token: string): Promise<AccessTokenClaims | null> {
  const payload = await verifyOwnJwt(deps, instance, token, { typ: ACCESS_TOKEN_TYP, audience: instance.fapiUrl });
  if (!payload || typeof payload.client_id !== 'string' || typeof payload.scope !== 'string' || typeof payload.jti !== 'string')
    return null;
  if (typeof payload.sub !== 'string' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number') return null;
  return payload as AccessTokenClaims;
}

/** An ID token this instance issued, expired or not: for id_token_hint. */
export async function verifyIdTokenHint(deps: D, instance: InstanceContext, token: string) {
  const payload = await verifyOwnJwt(deps, instance, token, { typ: 'jwt', allowExpired: true });
  if (!payload || typeof payload.sub !== 'string' || typeof payload.aud !== 'string') return null;
  return { sub: payload.sub, clientId: payload.aud };
}
