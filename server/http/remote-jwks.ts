import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { Deps } from '../deps';
import { guardedRequest, outboundNetwork, targetPolicy } from './outbound';
import { validationError } from './errors';
import { checkTargetUrl, TargetRefused } from '../infra/ssrf';

/** An instance's environment (instances/instances.ts names it; http sits below instances). */
type Environment = 'test' | 'live';

/**
 * A remote party's public keys (its `jwks_uri`: an LTI platform, an OAuth client), fetched
 * through the SSRF guard and cached per owner. A token naming a kid the cached set lacks
 * refetches the set once (the owner rotated), at most once per REFETCH_COOLDOWN_MS, so unknown
 * kids cannot make us hammer the owner.
 */
const JWKS_TTL_MS = 10 * 60_000;
const REFETCH_COOLDOWN_MS = 10_000;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_JWKS_BYTES = 64 * 1024;

interface CachedSet {
  uri: string;
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

export type RemoteJwksDeps = Pick<Deps, 'config' | 'dns' | 'testTrustedCas' | 'caches' | 'clock' | 'logger'>;

export interface RemoteJwksOwner {
  /** The cache this kind of owner uses, e.g. `lti-jwks`. */
  cache: string;
  id: string;
  jwksUri: string;
  userAgent: string;
  /** The error to throw when the set cannot be fetched or read. */
  unavailable(message: string): Error;
}

/** A `jwks_uri` passes the outbound policy of the instance (https and public addresses on live instances), else 422 invalid_url. */
export function checkJwksUri(config: Deps['config'], environment: Environment, raw: string, param = 'jwks_uri'): string {
  try {
    checkTargetUrl(raw, targetPolicy(config, environment));
    return raw;
  } catch (e) {
    if (e instanceof TargetRefused) throw validationError(param, 'invalid_url', e.message);
    throw e;
  }
}

export const forgetRemoteJwks = (deps: Pick<Deps, 'caches'>, cache: string, ownerId: string) =>
  deps.caches.get(cache, JWKS_TTL_MS).delete(ownerId);

/** A JWKS document's keys (objects only); throws on anything else. */
function parseJwks(body: string): JSONWebKeySet {
  const parsed = JSON.parse(body) as unknown;
  const keys = (parsed as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error('no keys');
  return { keys: keys.filter((k): k is JSONWebKeySet['keys'][number] => typeof k === 'object' && k !== null) };
}

async function fetchJwks(deps: RemoteJwksDeps, owner: RemoteJwksOwner, environment: Environment): Promise<JSONWebKeySet> {
  let body: string;
  try {
    const res = await guardedRequest({
      url: owner.jwksUri,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': owner.userAgent },
      body: '',
      timeoutMs: FETCH_TIMEOUT_MS,
      maxResponseBytes: MAX_JWKS_BYTES,
      policy: targetPolicy(deps.config, environment),
      ...outboundNetwork(deps),
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    body = res.body;
  } catch (err) {
    deps.logger.warn({ err: err instanceof Error ? err.message : String(err), cache: owner.cache }, 'remote JWKS unavailable');
    throw owner.unavailable('The key set could not be fetched.');
  }
  try {
    return parseJwks(body);
  } catch {
    throw owner.unavailable('The key set is not a JSON Web Key Set.');
  }
}

const hasKid = (jwks: JSONWebKeySet, kid: string | undefined) => kid !== undefined && jwks.keys.some((k) => k.kid === kid);

/**
 * The key set to verify a token signed with `kid` against: the cached one when it has the
 * kid, else a fresh one (once per cooldown). The verifier still refuses a kid no set has.
 */
export async function remoteKeys(deps: RemoteJwksDeps, owner: RemoteJwksOwner, environment: Environment, kid: string | undefined) {
  const cache = deps.caches.get<CachedSet>(owner.cache, JWKS_TTL_MS);
  const now = deps.clock.now();
  let hit = cache.get(owner.id, now);
  if (hit && hit.uri !== owner.jwksUri) hit = undefined;
  if (!hit || (!hasKid(hit.jwks, kid) && now - hit.fetchedAt >= REFETCH_COOLDOWN_MS)) {
    hit = { uri: owner.jwksUri, jwks: await fetchJwks(deps, owner, environment), fetchedAt: now };
    cache.set(owner.id, hit, now);
  }
  return createLocalJWKSet(hit.jwks);
}
