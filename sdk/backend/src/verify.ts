import { base64UrlJson, base64UrlToBytes, encoder, fapiUrlFromPublishableKey } from './encoding.js';
import {
  TokenAuthorizedPartyError,
  TokenExpiredError,
  TokenIssuerError,
  TokenMalformedError,
  TokenNotYetValidError,
  TokenSignatureError,
} from './errors.js';
import { JwksCache, type JwksCacheOptions, type SharedJwksCache } from './jwks.js';
import { withDefaults } from './options.js';

/** The raw claims of a Latchkey session JWT. */
export interface SessionJwtPayload {
  iss: string;
  sub: string;
  sid: string;
  sts?: string;
  sv?: number;
  iat: number;
  nbf?: number;
  exp: number;
  azp?: string;
  act?: { sub: string };
  org_id?: string;
  org_slug?: string;
  org_role?: string;
  org_permissions?: string[];
  pla?: string;
  fea?: string[] | string;
  [claim: string]: unknown;
}

/** What a verified session token says, in SDK terms. */
export interface SessionAuth {
  userId: string;
  sessionId: string;
  /** `active`, or `pending` while the session awaits a second factor. */
  sessionStatus: string | undefined;
  /** Set when the session is an impersonation: who is acting. */
  actor: { sub: string } | null;
  organization: { id: string; slug?: string; role?: string; permissions: string[] } | null;
  plan: string | null;
  features: string[];
  expiresAt: number;
  issuedAt: number;
  claims: SessionJwtPayload;
}

export interface VerifyOptions {
  /** The instance's fapi_url (the token's `iss`); or give `publishableKey`. */
  issuer?: string;
  publishableKey?: string;
  /** Origins the token may have been minted for (`azp`); unset allows any. */
  authorizedParties?: string[];
  /** Tolerance on exp/nbf in seconds (default 5). */
  clockSkew?: number;
  /** Where the keys are (default `<issuer>/.well-known/jwks.json`). */
  jwksUrl?: string;
  fetch?: typeof fetch;
  sharedCache?: SharedJwksCache;
  jwks?: Omit<JwksCacheOptions, 'jwksUrl' | 'fetch' | 'sharedCache' | 'now'>;
  now?: () => number;
}

type Header = { alg?: unknown; kid?: unknown };

/** A verifier bound to one instance: keeps its key set cache between calls. */
export interface TokenVerifier {
  verify(token: string): Promise<SessionAuth>;
  readonly issuer: string;
  readonly jwks: JwksCache;
}

export function createTokenVerifier(opts: VerifyOptions): TokenVerifier {
  const issuer = (opts.issuer ?? (opts.publishableKey ? fapiUrlFromPublishableKey(opts.publishableKey) : undefined))?.replace(/\/$/, '');
  if (!issuer) throw new Error('verifyToken needs `issuer` or `publishableKey`.');
  const o = withDefaults({ clockSkew: 5, now: Date.now, jwksUrl: `${issuer}/.well-known/jwks.json` }, opts);
  const now = o.now;
  const jwks = new JwksCache({ ...o.jwks, jwksUrl: o.jwksUrl, fetch: o.fetch, sharedCache: o.sharedCache, now });
  const skew = o.clockSkew;
  const parties = o.authorizedParties;

  const headers = new Map<string, Header>();
  async function verify(token: string): Promise<SessionAuth> {
    const parts = typeof token === 'string' && token.length <= 16_384 ? token.split('.') : [];
    if (parts.length !== 3) throw new TokenMalformedError();
    let header: Header | undefined = headers.get(parts[0]!);
    let payload: SessionJwtPayload;
    let signature: Uint8Array<ArrayBuffer>;
    try {
      if (!header) {
        header = base64UrlJson(parts[0]!) as Header;
        // Few distinct headers exist (one per signing key): keep the parsed ones, bounded.
        if (headers.size >= 64) headers.clear();
        headers.set(parts[0]!, header);
      }
      payload = base64UrlJson(parts[1]!) as SessionJwtPayload;
      signature = base64UrlToBytes(parts[2]!);
    } catch {
      throw new TokenMalformedError();
    }
    if (typeof header !== 'object' || header === null || header.alg !== 'RS256' || typeof payload !== 'object' || payload === null)
      throw new TokenMalformedError();
    if (payload.iss !== issuer) throw new TokenIssuerError(typeof payload.iss === 'string' ? payload.iss : undefined);
    const kid = typeof header.kid === 'string' ? header.kid : undefined;
    const key = jwks.peek(kid) ?? (await jwks.getKey(kid));
    const signed = encoder.encode(`${parts[0]}.${parts[1]}`);
    const checked = key.verify(signed, signature);
    if (!(typeof checked === 'boolean' ? checked : await checked)) throw new TokenSignatureError();
    if (typeof payload.sub !== 'string' || typeof payload.sid !== 'string' || typeof payload.exp !== 'number') {
      throw new TokenMalformedError('The token lacks sub, sid or exp.');
    }
    const t = now() / 1000;
    if (payload.exp <= t - skew) throw new TokenExpiredError(payload.exp);
    const nbf = payload.nbf ?? payload.iat;
    if (typeof nbf === 'number' && nbf > t + skew) throw new TokenNotYetValidError(nbf);
    if (parties && parties.length > 0 && payload.azp !== undefined && !parties.includes(payload.azp)) {
      throw new TokenAuthorizedPartyError(payload.azp);
    }
    return toAuth(payload);
  }
  return { verify, issuer, jwks };
}

function toAuth(p: SessionJwtPayload): SessionAuth {
  const features = Array.isArray(p.fea) ? p.fea : typeof p.fea === 'string' ? p.fea.split(',').filter(Boolean) : [];
  return {
    userId: p.sub,
    sessionId: p.sid,
    sessionStatus: p.sts,
    actor: p.act && typeof p.act.sub === 'string' ? { sub: p.act.sub } : null,
    organization: p.org_id ? { id: p.org_id, slug: p.org_slug, role: p.org_role, permissions: p.org_permissions ?? [] } : null,
    plan: typeof p.pla === 'string' ? p.pla : null,
    features,
    expiresAt: p.exp,
    issuedAt: p.iat,
    claims: p,
  };
}

/**
 * One object per configuration in this process, so the key set is fetched once per
 * configuration: keyed on every option that is data, the `jwks` tuning included. Options
 * that are functions or objects of the caller's (fetch, now, sharedCache) cannot be compared,
 * so such a configuration gets a fresh object on every call.
 */
export function perConfiguration<O extends VerifyOptions, V>(build: (opts: O) => V, extra: (opts: O) => unknown[] = () => []) {
  const made = new Map<string, V>();
  return (opts: O): V => {
    if (opts.fetch || opts.now || opts.sharedCache) return build(opts);
    const jwks = Object.entries(opts.jwks ?? {})
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    const key = JSON.stringify([
      opts.issuer,
      opts.publishableKey,
      opts.authorizedParties,
      opts.clockSkew,
      opts.jwksUrl,
      jwks,
      ...extra(opts),
    ]);
    let v = made.get(key);
    if (!v) {
      v = build(opts);
      // A process has few configurations. Bounded all the same.
      if (made.size >= 32) made.clear();
      made.set(key, v);
    }
    return v;
  };
}

const verifierFor = perConfiguration(createTokenVerifier);

/**
 * Verifies a session JWT offline against the instance's key set (fetched once, cached per
 * configuration in this process). Throws a `TokenVerificationError` subclass naming the reason.
 */
export function verifyToken(token: string, opts: VerifyOptions): Promise<SessionAuth> {
  return verifierFor(opts).verify(token);
}
