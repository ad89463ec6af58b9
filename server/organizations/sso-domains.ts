import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { afterCommit } from '../db/after-commit';
import { ssoConnections } from '../db/schema';
import { AppError } from '../http/errors';

/**
 * The domains of an instance's active SSO connections, asked on every password and
 * email-code sign-in, so kept per node. Any change to a connection (its own, or its
 * organization's deletion) drops the entry on every node once it commits; the TTL bounds a
 * lost invalidation.
 */
const SSO_DOMAINS_CACHE = 'sso_domains';
const SSO_DOMAINS_TTL_MS = 60_000;

const domainsCacheOf = (deps: Pick<Deps, 'caches'>) => deps.caches.get<ReadonlySet<string>>(SSO_DOMAINS_CACHE, SSO_DOMAINS_TTL_MS);

export const forgetSsoDomains = (deps: Pick<Deps, 'cacheInvalidation'>, instanceId: string) =>
  afterCommit(() => deps.cacheInvalidation.invalidate(SSO_DOMAINS_CACHE, instanceId));

export const domainOf = (email: string) => {
  const at = email.lastIndexOf('@');
  return at < 0 ? null : email.slice(at + 1).toLowerCase();
};

/** The domains of the instance's active connections (cached per node, above). */
export async function activeSsoDomains(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string): Promise<ReadonlySet<string>> {
  const cache = domainsCacheOf(deps);
  const cached = cache.get(instanceId, deps.clock.now());
  if (cached) return cached;
  const ticket = cache.begin();
  const rows = await deps.db
    .select({ domains: ssoConnections.domains })
    .from(ssoConnections)
    .where(and(eq(ssoConnections.instanceId, instanceId), eq(ssoConnections.active, true)));
  const domains = new Set(rows.flatMap((r) => r.domains.map((d) => d.toLowerCase())));
  cache.setIfUnchanged(instanceId, domains, deps.clock.now(), ticket);
  return domains;
}

/** Whether an active connection serves the email address's domain (activeConnectionForEmail, cached). */
async function hasActiveConnectionForEmail(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  email: string,
): Promise<boolean> {
  const domain = domainOf(email);
  if (!domain) return false;
  return (await activeSsoDomains(deps, instanceId)).has(domain);
}

/** The domain of an email identifier has an active connection: its users sign in through their IdP, never with a password or an email code. */
export async function assertPasswordAllowed(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string, identifier: string) {
  if (await hasActiveConnectionForEmail(deps, instanceId, identifier)) throw ssoRequired('This email address');
}

/** 403 sso_required: `who` ("This account", "This email address") signs in through its IdP only. */
export const ssoRequired = (who: string) =>
  new AppError('FORBIDDEN', {
    message: `${who} signs in with single sign-on (strategy enterprise_sso), not a password or a code.`,
    meta: { reason: 'sso_required', param: 'strategy' },
  });
