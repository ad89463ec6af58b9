import * as client from 'openid-client';
import type { Deps } from '../deps';
import { guardedRequest } from '../http/outbound';
import type { InstanceContext } from '../instances/instances';
import { targetPolicy } from '../webhooks/policy';
import { DEFAULT_OIDC_SCOPES, oidcRedirectUri, type ConnectionRow } from './connections';
import { SsoRefused } from './saml';

type D = Pick<Deps, 'config' | 'dns' | 'cipher'>;
const MAX_RESPONSE_BYTES = 1024 * 1024;

/** openid-client's fetch, through the SSRF guard (discovery, JWKS and token requests go to a user-supplied issuer). */
function guardedFetch(deps: D, instance: InstanceContext): client.CustomFetch {
  return async (url, options) => {
    const body = options.body === undefined || options.body === null ? '' : String(options.body as string | URLSearchParams);
    const res = await guardedRequest({
      url,
      method: options.method,
      headers: options.headers,
      body,
      timeoutMs: 10_000,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      policy: targetPolicy(deps.config, instance.environment),
      resolve: deps.dns,
    });
    const headers = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') headers.set(k, v);
    return new Response(res.status === 204 ? null : res.body, { status: res.status, headers });
  };
}

/** The connection's relying-party configuration, from the issuer's discovery document. */
export async function oidcConfig(deps: D, instance: InstanceContext, c: ConnectionRow): Promise<client.Configuration> {
  const secret = c.oidcClientSecretEncrypted ? deps.cipher.decrypt(c.oidcClientSecretEncrypted) : undefined;
  const fetcher = guardedFetch(deps, instance);
  try {
    const config = await client.discovery(new URL(c.oidcIssuer!), c.oidcClientId!, secret, secret ? client.ClientSecretPost(secret) : client.None(), {
      [client.customFetch]: fetcher,
      // Test instances may use an http issuer (a local IdP); live ones need https (the SSRF policy says so too).
      execute: instance.environment === 'test' ? [client.allowInsecureRequests] : [],
    });
    config[client.customFetch] = fetcher;
    return config;
  } catch (err) {
    throw new SsoRefused('discovery_failed', `The OIDC issuer's discovery failed: ${(err as Error).message}`);
  }
}

/** The authorization URL with PKCE (S256), state and nonce; the caller keeps the verifier, state and nonce. */
export async function oidcAuthorizationUrl(deps: D, instance: InstanceContext, c: ConnectionRow, state: string) {
  const config = await oidcConfig(deps, instance, c);
  const codeVerifier = client.randomPKCECodeVerifier();
  const nonce = client.randomNonce();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: oidcRedirectUri(instance.fapiUrl, c.id),
    scope: c.oidcScopes ?? DEFAULT_OIDC_SCOPES,
    response_type: 'code',
    code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
    code_challenge_method: 'S256',
    state,
    nonce,
  });
  return { url: url.href, codeVerifier, nonce };
}

/** Redeems the callback's code (state, PKCE verifier and nonce checked by openid-client); the ID token's claims. */
export async function oidcCallback(
  deps: D,
  instance: InstanceContext,
  c: ConnectionRow,
  currentUrl: URL,
  checks: { state: string; codeVerifier: string; nonce: string },
): Promise<Record<string, unknown>> {
  const config = await oidcConfig(deps, instance, c);
  try {
    const tokens = await client.authorizationCodeGrant(config, currentUrl, {
      expectedState: checks.state,
      pkceCodeVerifier: checks.codeVerifier,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = { ...(tokens.claims() ?? {}) } as Record<string, unknown>;
    if (claims.email === undefined && tokens.access_token) {
      const info = await client.fetchUserInfo(config, tokens.access_token, String(claims.sub));
      return { ...info, ...claims, email: info.email, email_verified: info.email_verified };
    }
    return claims;
  } catch (err) {
    throw new SsoRefused('oidc_callback_failed', `The OIDC callback was refused: ${(err as Error).message}`);
  }
}
