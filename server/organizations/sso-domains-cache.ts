import type { Deps } from '../deps';
import { afterCommit } from '../db/after-commit';

/**
 * The domains of an instance's active SSO connections, asked on every password and
 * email-code sign-in, so kept per node. Any change to a connection (its own, or its
 * organization's deletion) drops the entry on every node once it commits; the TTL bounds a
 * lost invalidation.
 */
const SSO_DOMAINS_CACHE = 'sso_domains';
const SSO_DOMAINS_TTL_MS = 60_000;

export const domainsCacheOf = (deps: Pick<Deps, 'caches'>) => deps.caches.get<ReadonlySet<string>>(SSO_DOMAINS_CACHE, SSO_DOMAINS_TTL_MS);

export const forgetSsoDomains = (deps: Pick<Deps, 'cacheInvalidation'>, instanceId: string) =>
  afterCommit(() => deps.cacheInvalidation.invalidate(SSO_DOMAINS_CACHE, instanceId));
