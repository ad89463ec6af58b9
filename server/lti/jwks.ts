import { createLocalJWKSet, type JSONWebKeySet } from 'jose';
import type { Deps } from '../deps';
import { AppError } from '../http/errors';
import { guardedRequest, outboundNetwork, targetPolicy } from '../http/outbound';
import type { Environment } from '../instances/instances';
import { REASONS } from './reasons';

/**
 * A platform's public keys (its `jwks_uri`), fetched through the SSRF guard and cached per
 * registration. A token naming a kid the cached set lacks refetches the set once (the
 * platform rotated), at most once per REFETCH_COOLDOWN_MS, so unknown kids cannot make us
 * hammer the platform.
 */
const JWKS_TTL_MS = 10 * 60_000;
const REFETCH_COOLDOWN_MS = 10_000;
const FETCH_TIMEOUT_MS = 5_000;
const MAX_JWKS_BYTES = 64 * 1024;
const CACHE = 'lti-jwks';

interface CachedSet {
  uri: string;
  jwks: JSONWebKeySet;
  fetchedAt: number;
}

type D = Pick<Deps, 'config' | 'dns' | 'testTrustedCas' | 'caches' | 'clock' | 'logger'>;

export const forgetJwks = (deps: Pick<Deps, 'caches'>, platformId: string) => deps.caches.get(CACHE, JWKS_TTL_MS).delete(platformId);

const unavailable = (message: string) => new AppError('LTI_LAUNCH_INVALID', { message, meta: { reason: REASONS.jwks_unavailable } });

async function fetchJwks(deps: D, uri: string, environment: Environment): Promise<JSONWebKeySet> {
  let body: string;
  try {
    const res = await guardedRequest({
      url: uri,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': 'Latchkey LTI' },
      body: '',
      timeoutMs: FETCH_TIMEOUT_MS,
      maxResponseBytes: MAX_JWKS_BYTES,
      policy: targetPolicy(deps.config, environment),
      ...outboundNetwork(deps),
    });
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    body = res.body;
  } catch (err) {
    deps.logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'LTI platform JWKS unavailable');
    throw unavailable('The platform’s key set could not be fetched.');
  }
  try {
    const parsed = JSON.parse(body) as unknown;
    const keys = (parsed as { keys?: unknown }).keys;
    if (!Array.isArray(keys)) throw new Error('no keys');
    return { keys: keys.filter((k): k is JSONWebKeySet['keys'][number] => typeof k === 'object' && k !== null) };
  } catch {
    throw unavailable('The platform’s key set is not a JSON Web Key Set.');
  }
}

const hasKid = (jwks: JSONWebKeySet, kid: string) => jwks.keys.some((k) => k.kid === kid);

/**
 * The key set to verify a token signed with `kid` against: the cached one when it has the
 * kid, else a fresh one (once per cooldown). The verifier still refuses a kid no set has.
 */
export async function platformKeys(deps: D, platform: { id: string; jwksUri: string }, environment: Environment, kid: string) {
  const cache = deps.caches.get<CachedSet>(CACHE, JWKS_TTL_MS);
  const now = deps.clock.now();
  let hit = cache.get(platform.id, now);
  if (hit && hit.uri !== platform.jwksUri) hit = undefined;
  if (!hit || (!hasKid(hit.jwks, kid) && now - hit.fetchedAt >= REFETCH_COOLDOWN_MS)) {
    hit = { uri: platform.jwksUri, jwks: await fetchJwks(deps, platform.jwksUri, environment), fetchedAt: now };
    cache.set(platform.id, hit, now);
  }
  return createLocalJWKSet(hit.jwks);
}
