import * as client from 'openid-client';
import type { Deps } from '../deps';
import { outboundNetwork } from '../http/outbound';
import { guardedFetch } from '../http/outbound-fetch';
import type { InstanceContext } from '../instances/instances';
import { targetPolicy } from '../http/outbound';
import { DEFAULT_OIDC_SCOPES, oidcRedirectUri, type ConnectionRow } from './connections';
import { SsoRefused } from './saml';

type D = Pick<Deps, 'config' | 'dns' | 'testTrustedCas' | 'cipher'>;

/** openid-client's fetch, through the SSRF guard (discovery, JWKS and token requests go to a user-supplied issuer). */
const issuerFetch = (deps: D, instance: InstanceContext) =>
  guardedFetch({
    policy: targetPolicy(deps.config, instance.environment),
    ...outboundNetwork(deps),
    timeoutMs: 10_000,
    maxResponseBytes: 1024 * 1024,
  }) as client.CustomFetch;

/**
 * What openid-client's error says an admin can act on: the IdP's own OAuth error
 * (`invalid_client: …` for a wrong secret), an unexpected HTTP status, or its message.
 */
function oidcFailure(err: unknown): string {
  const e = err as { message?: string; error?: unknown; error_description?: unknown; status?: unknown; cause?: unknown };
  const text = (v: unknown) => String(v).replace(/\s+/g, ' ').slice(0, 200);
  if (typeof e.error === 'string')
    return `the identity provider answered ${text(e.error)}${e.error_description ? `: ${text(e.error_description)}` : ''}`;
  const status = typeof e.status === 'number' ? e.status : (e.cause as { status?: unknown } | undefined)?.status;
  const message = e.message ?? String(err);
  return typeof status === 'number' ? `${message} (HTTP ${status})` : message;
}

/** The connection's relying-party configuration, from the issuer's discovery document. */
async function oidcConfig(deps: D, instance: InstanceContext, c: ConnectionRow): Promise<client.Configuration> {
  const secret = c.oidcClientSecretEncrypted ? deps.cipher.decrypt(c.oidcClientSecretEncrypted) : undefined;
  const fetcher = issuerFetch(deps, instance);
  try {
    const config = await client.discovery(
      new URL(c.oidcIssuer!),
      c.oidcClientId!,
      secret,
      secret ? client.ClientSecretPost(secret) : client.None(),
      {
        [client.customFetch]: fetcher,
        // Test instances may use an http issuer (a local IdP); live ones need https (the SSRF policy says so too).
        execute: instance.environment === 'test' ? [client.allowInsecureRequests] : [],
      },
    );
    config[client.customFetch] = fetcher;
    return config;
  } catch (err) {
    const at = `${c.oidcIssuer!.replace(/\/$/, '')}/.well-known/openid-configuration`;
    throw new SsoRefused('discovery_failed', `The OIDC issuer's discovery (${at}) failed: ${oidcFailure(err)}`);
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
    throw new SsoRefused('oidc_callback_failed', `The OIDC callback was refused: ${oidcFailure(err)}`);
  }
}
