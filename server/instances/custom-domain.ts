import { and, eq, ne, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Config } from '../config';
import type { Deps } from '../deps';
import { instances } from '../db/schema';
import { prepared } from '../db/prepared';
import { uniqueViolation } from '../db/errors';
import { AppError, validationError } from '../http/errors';
import { REASONS } from './reasons';

/**
 * Custom domains (the host-based issuer). An instance with `custom_domain` set has
 * fapi_url `https://<custom_domain>`: a request whose Host is that domain is served the
 * instance's FAPI, hosted pages and OIDC at the host root (server/api/surfaces.ts maps
 * `/<path>` to `/fapi/<instance_id>/<path>`). `{PUBLIC_URL}/fapi/<instance_id>` keeps
 * answering too, and keeps accepting the publishable key derived from it.
 */

const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** Lowercase labels joined by dots; the last one starts with a letter, so an IPv4 address is not a hostname. */
const HOSTNAME_RE = new RegExp(`^(?:${LABEL}\\.)+[a-z](?:[a-z0-9-]{0,61}[a-z0-9])?$`);
const MAX_HOSTNAME = 253;

const isCustomDomainName = (v: string) => v.length <= MAX_HOSTNAME && HOSTNAME_RE.test(v);

/** `custom_domain` in a settings change: a lowercase hostname (no scheme, port or path), or null to clear it. */
export const customDomainInput = z
  .string()
  .max(MAX_HOSTNAME)
  .refine(isCustomDomainName, {
    message: 'must be a lowercase hostname such as auth.example.com (no scheme, port or path)',
    params: { reason: 'invalid_domain' },
  })
  .nullable();

const publicHosts = new WeakMap<object, string>();
/** PUBLIC_URL's hostname, parsed once per config (it is on every request's path). */
function publicHost(config: Pick<Config, 'PUBLIC_URL'>): string {
  let host = publicHosts.get(config);
  if (host === undefined) publicHosts.set(config, (host = new URL(config.PUBLIC_URL).hostname));
  return host;
}

/** The fapi_url an instance has when reached by path on PUBLIC_URL: `{PUBLIC_URL}/fapi/<instance_id>`. */
export const pathFapiUrl = (config: Pick<Config, 'PUBLIC_URL'>, instanceId: string) => `${config.PUBLIC_URL}/fapi/${instanceId}`;

/** The fapi_url of an instance: its custom domain's root, else its path under PUBLIC_URL. */
export const fapiUrlFor = (config: Pick<Config, 'PUBLIC_URL'>, instanceId: string, customDomain: string | null) =>
  customDomain ? `https://${customDomain}` : pathFapiUrl(config, instanceId);

const HOST_CACHE = 'custom_domain_host';
/** Every node sees a domain set, moved or cleared within this long (the node that changed it at once). */
export const HOST_CACHE_TTL_MS = 5_000;

/**
 * Checks and claims a custom domain for an instance inside the caller's transaction;
 * returns the columns to write (custom_domain, fapi_url). Refuses PUBLIC_URL's own host
 * (422 `public_url_host`), a domain another instance holds (409 `domain_in_use`), and
 * any domain for the platform instance (403).
 */
export async function claimCustomDomain(
  deps: Pick<Deps, 'db' | 'config'>,
  instance: { id: string; kind: 'customer' | 'platform' },
  domain: string | null,
): Promise<{ customDomain: string | null; fapiUrl: string }> {
  const instanceId = instance.id;
  if (domain !== null) {
    // The console signs in through the platform instance at PUBLIC_URL (its cookie is at `/` there).
    if (instance.kind === 'platform')
      throw new AppError('FORBIDDEN', {
        message: "The console's own instance cannot have a custom domain.",
        meta: { param: 'custom_domain' },
      });
    if (domain === publicHost(deps.config)) {
      throw validationError(
        'custom_domain',
        REASONS.public_url_host,
        'custom_domain must not be the host of PUBLIC_URL, which serves the console and the backend API.',
      );
    }
    const [taken] = await deps.db
      .select({ id: instances.id })
      .from(instances)
      .where(and(eq(instances.customDomain, domain), ne(instances.id, instanceId)))
      .limit(1);
    if (taken) throw domainInUse(domain);
  }
  return { customDomain: domain, fapiUrl: fapiUrlFor(deps.config, instanceId, domain) };
}

const domainInUse = (domain: string) =>
  new AppError('CONFLICT', {
    message: `${domain} is already the custom domain of another instance.`,
    meta: { param: 'custom_domain', reason: REASONS.domain_in_use },
  });

/** A unique violation on the custom domain (or the publishable key derived from it) when two claims race. */
export function asDomainConflict(err: unknown, domain: string | null): unknown {
  const constraint = uniqueViolation(err);
  return domain !== null && (constraint === 'instances_custom_domain_uq' || constraint === 'instances_publishable_key_uq')
    ? domainInUse(domain)
    : err;
}

/** Forgets the cached host lookups of these domains on this node (others within HOST_CACHE_TTL_MS). */
export function forgetHosts(deps: Pick<Deps, 'caches'>, ...domains: (string | null)[]) {
  const cache = deps.caches.get<string | null>(HOST_CACHE, HOST_CACHE_TTL_MS);
  for (const d of domains) if (d) cache.delete(d);
}

const instanceByDomainStatement = prepared((db) =>
  db
    .select({ id: instances.id })
    .from(instances)
    .where(eq(instances.customDomain, sql.placeholder('domain')))
    .prepare('instance_by_custom_domain'),
);

/**
 * The instance whose custom domain a request's host is, or null. PUBLIC_URL's host and
 * anything that is not a hostname (an IP address, `localhost`) are never looked up;
 * answers, misses included, are cached for a few seconds.
 */
export async function instanceIdForHost(deps: Pick<Deps, 'db' | 'clock' | 'caches' | 'config'>, host: string): Promise<string | null> {
  if (!isCustomDomainName(host) || host === publicHost(deps.config)) return null;
  const cache = deps.caches.get<string | null>(HOST_CACHE, HOST_CACHE_TTL_MS);
  const now = deps.clock.now();
  const hit = cache.get(host, now);
  if (hit !== undefined) return hit;
  const [row] = await instanceByDomainStatement(deps.db).execute({ domain: host });
  const id = row?.id ?? null;
  cache.set(host, id, now);
  return id;
}

/**
 * The hostname a request was sent to: `X-Forwarded-Host` behind a trusted proxy
 * (TRUST_PROXY), else `Host`; lowercased, without port or trailing dot.
 */
export function requestHostname(header: (name: string) => string | null | undefined, trustProxy: boolean): string {
  const forwarded = trustProxy ? header('x-forwarded-host')?.split(',')[0]?.trim() : undefined;
  const raw = (forwarded || header('host') || '').toLowerCase();
  return raw.replace(/:\d+$/, '').replace(/\.$/, '');
}

/**
 * createApiHandler hands the routers the custom domain a request came in on through
 * Hono's `c.env` — never a header a client could send.
 */
const ENV_KEY = 'latchkeyCustomDomain';
export const withCustomDomain = (env: unknown, domain: string): Record<string, unknown> => ({
  ...((env as object | undefined) ?? {}),
  [ENV_KEY]: domain,
});
const customDomainOf = (env: unknown): string | null => {
  const v = (env as Record<string, unknown> | undefined)?.[ENV_KEY];
  return typeof v === 'string' ? v : null;
};

/**
 * The fapi_url this request reached the instance by: its custom domain's root, or its
 * path under PUBLIC_URL. Cookies and the instance's own origin follow it, so both
 * addresses work in a browser; tokens always carry the instance's one fapi_url as `iss`.
 */
export function servedFapiUrl(
  env: unknown,
  config: Pick<Config, 'PUBLIC_URL'>,
  instance: { id: string; fapiUrl: string; customDomain?: string | null },
): string {
  if (!instance.customDomain) return instance.fapiUrl;
  return customDomainOf(env) === instance.customDomain ? instance.fapiUrl : pathFapiUrl(config, instance.id);
}
