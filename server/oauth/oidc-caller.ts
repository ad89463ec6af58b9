import type { Deps } from '../deps';
import type { LimitRule } from '../infra/limiter';
import { type InstanceContext } from '../instances/instances';
import { type ClientRow } from '../sessions/clients';

/**
 * Guards of the OIDC surface. `public`: discovery and keys (cacheable). `browser`: the
 * authorization endpoint, consent and logout, which recognise the signed-in browser by the
 * FAPI `__client` cookie (scoped to the fapi_url path, so it reaches /oauth2/… too) and
 * refuse foreign-origin posts like the FAPI. `client`: token, revocation, introspection —
 * the client authenticates in the handler (its credentials may be in the body) and the
 * caller's IP is rate-limited. `bearer`: userinfo.
 */
export interface OidcGuard {
  kind: 'public' | 'browser' | 'client' | 'bearer';
  cache?: string;
  /** A browser route a relying party's page posts to (the authorization request by POST): no same-origin check, and it changes nothing by itself. */
  crossSite?: boolean;
}

export interface OidcAuth {
  instance: InstanceContext;
  /** The Authorization header as sent (client_secret_basic, or a bearer access token). */
  authorization: string | undefined;
  /** The signed-in browser's FAPI client (browser routes), or null. */
  client: ClientRow | null;
  /** Cookies this answer must set (a stale client cookie is cleared). */
  cookie(name: string): string | undefined;
}

/** The token endpoint's budgets; OAUTH_TOKEN_RATE_LIMIT (per 10 s) raises or lowers both. */
export const tokenLimits = (deps: Pick<Deps, 'config'>) => {
  const configured = deps.config.OAUTH_TOKEN_RATE_LIMIT;
  return {
    perIp: { name: 'oauth_token_ip', limit: configured ?? 300, windowMs: 10_000 } satisfies LimitRule,
    perClient: { name: 'oauth_token_client', limit: configured ?? 1000, windowMs: 10_000 } satisfies LimitRule,
  };
};

/** Dynamic Client Registration's budget per caller IP: OAUTH_REGISTRATION_RATE_LIMIT registrations a minute (default 20). */
export const registrationLimit = (deps: Pick<Deps, 'config'>): LimitRule => ({
  name: 'oauth_registration_ip',
  limit: deps.config.OAUTH_REGISTRATION_RATE_LIMIT ?? 20,
  windowMs: 60_000,
});
