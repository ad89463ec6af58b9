import type { Deps } from '../deps';
import { AppError } from '../http/errors';
import { forgetRemoteJwks, remoteKeys, type RemoteJwksDeps } from '../http/remote-jwks';
import type { Environment } from '../instances/instances';
import { REASONS } from './reasons';

/** A platform's public keys (its `jwks_uri`), fetched through the SSRF guard and cached per registration (http/remote-jwks.ts). */
const CACHE = 'lti-jwks';

export const forgetJwks = (deps: Pick<Deps, 'caches'>, platformId: string) => forgetRemoteJwks(deps, CACHE, platformId);

const unavailable = (message: string) =>
  new AppError('LTI_LAUNCH_INVALID', {
    message: message.replace('The key set', 'The platform’s key set'),
    meta: { reason: REASONS.jwks_unavailable },
  });

export async function platformKeys(deps: RemoteJwksDeps, platform: { id: string; jwksUri: string }, environment: Environment, kid: string) {
  return remoteKeys(
    deps,
    { cache: CACHE, id: platform.id, jwksUri: platform.jwksUri, userAgent: 'Latchkey LTI', unavailable },
    environment,
    kid,
  );
}
