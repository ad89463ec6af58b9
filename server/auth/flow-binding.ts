import { createHash, randomBytes } from 'node:crypto';
import { parse } from 'hono/utils/cookie';
import { z } from 'zod';
import { constantTimeEqual, sha256Hex } from '../crypto/secrets';
import { AppError, validationError } from '../http/errors';

/**
 * Binding the answer of an external sign-in (SAML, OIDC SSO, social) to whoever started it,
 * so that an IdP URL sent to someone else cannot sign them in on the sender's client.
 *
 * - A browser (FAPI web mode): the start answers a flow cookie `__flow_<flow id>` holding a
 *   random nonce; the flow keeps the nonce's SHA-256. The callback (OIDC, social) or the ACS
 *   (SAML) completes only when that cookie comes back with the nonce — compared in constant
 *   time; otherwise it refuses (`flow_binding_mismatch`) and creates nothing. The cookie is
 *   HttpOnly, scoped to the fapi_url's path, and lives as long as the flow; SAML's is
 *   `SameSite=None; Secure` because the IdP posts the response from its own site (a Lax
 *   cookie is not sent on a cross-site POST), the others `SameSite=Lax`, as they come back by
 *   a top-level GET.
 * - A native app (FAPI native mode: no cookies): the app sends `code_challenge`
 *   (BASE64URL(SHA-256(verifier)), PKCE's S256) at the start. The callback verifies the IdP's
 *   answer but signs nobody in: it keeps the identity (encrypted) and sends the browser to the
 *   redirect_url with a one-time `claim_nonce`; the app then claims the sign-in with that
 *   nonce and its `code_verifier`. The nonce reaches only the device whose browser finished at
 *   the IdP, the verifier only the app that started: an IdP URL forwarded to someone else
 *   completes for nobody.
 *
 * There is no "begin" redirect that would set the cookie from a URL: any URL can be
 * forwarded, so a cookie handed out by one would bind the flow to whoever opens it. A web
 * caller is same-site with its FAPI (its `__client` cookie is SameSite=Lax too), so the
 * answer of the start itself sets the cookie; a caller that cannot hold cookies is native.
 */

const FLOW_COOKIE_PREFIX = '__flow_';
export const flowCookieName = (flowId: string) => `${FLOW_COOKIE_PREFIX}${flowId}`;

/** A random nonce for the browser's cookie (or the claim) and the digest the flow keeps. */
export function newFlowNonce(): { nonce: string; digest: string } {
  const nonce = randomBytes(32).toString('base64url');
  return { nonce, digest: sha256Hex(nonce) };
}

/** The nonce presented matches the flow's digest (constant time); a missing one never does. */
export const nonceMatches = (presented: string | null | undefined, digest: string | null) =>
  typeof presented === 'string' &&
  presented.length > 0 &&
  presented.length <= 256 &&
  digest !== null &&
  constantTimeEqual(sha256Hex(presented), digest);

/** The flow cookie of `flowId` came back from the browser with the nonce the flow was bound to. */
export function browserHoldsFlow(cookieHeader: string | undefined, flowId: string, digest: string | null): boolean {
  if (!cookieHeader) return false;
  const name = flowCookieName(flowId);
  return nonceMatches(parse(cookieHeader, name)[name], digest);
}

/** PKCE S256: a verifier of 43–128 unreserved characters; its challenge is 43 base64url characters. */
export const codeChallengeInput = z
  .string()
  .regex(/^[A-Za-z0-9_-]{43}$/, { message: 'must be BASE64URL(SHA-256(code_verifier)), 43 characters (PKCE S256).' })
  .meta({
    description:
      'Native apps (no cookies), oauth_<provider> and enterprise_sso: BASE64URL(SHA-256(code_verifier)); the app claims the sign-in with the verifier.',
  });
export const codeVerifierInput = z
  .string()
  .regex(/^[A-Za-z0-9._~-]{43,128}$/, { message: 'must be the PKCE code_verifier: 43–128 characters of A–Z a–z 0–9 . _ ~ -' });

const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');
export const verifierMatches = (verifier: string, challenge: string | null) =>
  challenge !== null && constantTimeEqual(challengeOf(verifier), challenge);

/** How a flow starting now is bound: the caller's mode decides, and a native start must bring its challenge. */
export type FlowBinding = { kind: 'browser'; nonce: string; digest: string } | { kind: 'native'; challenge: string };

export function bindingFor(mode: 'web' | 'native', codeChallenge: string | undefined): FlowBinding {
  if (mode === 'native') {
    if (!codeChallenge) {
      throw validationError(
        'code_challenge',
        'required',
        'A native app binds the sign-in to itself: send code_challenge (PKCE S256) and claim the sign-in with its code_verifier.',
      );
    }
    return { kind: 'native', challenge: codeChallenge };
  }
  return { kind: 'browser', ...newFlowNonce() };
}

/** The columns of a flow row (sso_requests, social_flows) for its binding. */
export const bindingColumns = (b: FlowBinding) =>
  b.kind === 'browser' ? { bindingDigest: b.digest, codeChallenge: null } : { bindingDigest: null, codeChallenge: b.challenge };

/** A claim that does not hold: one answer whatever failed, so nothing is learned by trying. */
export const claimRefused = () =>
  new AppError('FORBIDDEN', {
    message:
      'This sign-in cannot be claimed: the claim_nonce or code_verifier is wrong, or it was already claimed or expired. Start again.',
    meta: { reason: 'claim_invalid' },
  });

/** A browser-bound flow hands its cookie over with the start's answer (a native one has nothing to set). */
export function setFlowCookie(
  auth: { setCookie(name: string, value: string, maxAgeSeconds: number, opts?: { sameSiteNone?: boolean }): void },
  flowId: string,
  binding: FlowBinding,
  ttlMs: number,
  opts: { crossSitePost: boolean },
) {
  if (binding.kind === 'browser')
    auth.setCookie(flowCookieName(flowId), binding.nonce, Math.ceil(ttlMs / 1000), { sameSiteNone: opts.crossSitePost });
}

/** Where a native flow's browser goes once the IdP answered: the redirect_url with the one-time claim nonce. */
export function withClaimNonce(redirectUrl: string, nonce: string) {
  const url = new URL(redirectUrl);
  url.searchParams.set('claim_nonce', nonce);
  return url.href;
}
