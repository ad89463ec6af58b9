import * as oidc from 'openid-client';
import type { Deps } from '../deps';
import { outboundNetwork } from '../http/outbound';
import { guardedFetch } from '../http/outbound-fetch';
import type { InstanceContext } from '../instances/instances';
import { targetPolicy } from '../http/outbound';
import type { ProviderRow } from './providers';
import { OAUTH2_KINDS } from '../db/schema';

type D = Pick<Deps, 'config' | 'dns' | 'testTrustedCas' | 'cipher' | 'caches' | 'clock'>;

/** Discovery documents and client configurations are kept 10 minutes, keyed by the provider's version. */
const CONFIG_TTL_MS = 10 * 60_000;

/**
 * Every request to a provider (discovery, JWKS, token, userinfo, GitHub's API) goes through
 * the SSRF guard with the instance's target policy: https and public addresses on live
 * instances; test instances may reach loopback with ALLOW_PRIVATE_WEBHOOK_TARGETS=1.
 */
export const providerFetch = (deps: Pick<Deps, 'config' | 'dns' | 'testTrustedCas'>, instance: Pick<InstanceContext, 'environment'>) =>
  guardedFetch({
    policy: targetPolicy(deps.config, instance.environment),
    ...outboundNetwork(deps),
    timeoutMs: 10_000,
    maxResponseBytes: 512 * 1024,
  });

/** openid-client's configuration of a provider: discovered (OIDC) with endpoint overrides applied, or built (GitHub, Facebook, Discord). */
export async function providerConfig(deps: D, instance: Pick<InstanceContext, 'environment'>, p: ProviderRow): Promise<oidc.Configuration> {
  const cache = deps.caches.get<oidc.Configuration>('social_clients', CONFIG_TTL_MS, 1000);
  const key = `${p.id}:${p.updatedAt}`;
  const hit = cache.get(key, deps.clock.now());
  if (hit) return hit;
  const fetchFn = providerFetch(deps, instance) as oidc.CustomFetch;
  const secret = deps.cipher.decrypt(p.clientSecretEncrypted);
  const auth = oidc.ClientSecretPost(secret);
  // Plain http only where the target policy allows it (test instances); live instances require https before any request.
  const insecure = instance.environment === 'test';
  const overrides = Object.fromEntries(Object.entries(p.endpoints).filter(([k]) => k !== 'api_base_url'));
  let config: oidc.Configuration;
  if (OAUTH2_KINDS.includes(p.kind)) {
    const issuer = new URL(p.endpoints.authorization_endpoint!).origin;
    config = new oidc.Configuration({ issuer, ...overrides }, p.clientId, { client_secret: secret }, auth);
  } else {
    const discovered = await oidc.discovery(new URL(p.issuer!), p.clientId, { client_secret: secret }, auth, {
      [oidc.customFetch]: fetchFn,
      execute: insecure ? [oidc.allowInsecureRequests] : [],
    });
    config = Object.keys(overrides).length
      ? new oidc.Configuration({ ...discovered.serverMetadata(), ...overrides }, p.clientId, { client_secret: secret }, auth)
      : discovered;
  }
  config[oidc.customFetch] = fetchFn;
  if (insecure) oidc.allowInsecureRequests(config);
  cache.set(key, config, deps.clock.now());
  return config;
}
