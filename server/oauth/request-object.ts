import { createLocalJWKSet, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { remoteKeys, type RemoteJwksDeps } from '../http/remote-jwks';
import type { InstanceContext } from '../instances/instances';
import type { ApplicationRow } from './applications';

/**
 * OIDC Core §6.1 request objects (`request=`): an unsigned JWT (`alg: none`) or one signed
 * with RS256 by a key of the client (its `jwks`, or its `jwks_uri` fetched through the SSRF
 * guard). Its parameters supersede the query's; `iss` and `client_id`, when present, must be
 * the client, and `aud`, when present, the issuer. `request_uri` is not supported.
 */
export const REQUEST_OBJECT_ALGS = ['none', 'RS256'] as const;
const MAX_REQUEST_OBJECT = 16_384;
/** JWT claims of the object itself, not authorization request parameters. */
const ENVELOPE = new Set(['iss', 'aud', 'exp', 'iat', 'nbf', 'jti', 'request', 'request_uri']);

export class RequestObjectError extends Error {}

function decodePayload(segment: string): JWTPayload {
  const json = JSON.parse(Buffer.from(segment, 'base64url').toString('utf8')) as unknown;
  if (!json || typeof json !== 'object' || Array.isArray(json))
    throw new RequestObjectError('The request object’s payload is not a JSON object.');
  return json as JWTPayload;
}

async function verified(deps: RemoteJwksDeps, instance: InstanceContext, app: ApplicationRow, jwt: string): Promise<JWTPayload> {
  const parts = jwt.split('.');
  if (parts.length !== 3) throw new RequestObjectError('The request object is not a JWT.');
  let header: ReturnType<typeof decodeProtectedHeader>;
  try {
    header = decodeProtectedHeader(jwt);
  } catch {
    throw new RequestObjectError('The request object’s header is not readable.');
  }
  if (header.alg === 'none') {
    if (parts[2] !== '') throw new RequestObjectError('An unsigned request object has an empty signature.');
    try {
      return decodePayload(parts[1]!);
    } catch (e) {
      if (e instanceof RequestObjectError) throw e;
      throw new RequestObjectError('The request object’s payload is not readable.');
    }
  }
  if (header.alg !== 'RS256') throw new RequestObjectError('Request objects are unsigned (none) or signed with RS256.');
  const keys = app.jwks
    ? createLocalJWKSet(app.jwks as Parameters<typeof createLocalJWKSet>[0])
    : app.jwksUri
      ? await remoteKeys(
          deps,
          {
            cache: 'oauth-client-jwks',
            id: app.id,
            jwksUri: app.jwksUri,
            userAgent: 'Latchkey OpenID Provider',
            unavailable: (m) => new RequestObjectError(m),
          },
          instance.environment,
          header.kid,
        )
      : null;
  if (!keys) throw new RequestObjectError('The application has no jwks or jwks_uri to verify a signed request object with.');
  try {
    const { payload } = await jwtVerify(jwt, keys, { algorithms: ['RS256'], currentDate: new Date(deps.clock.now()), clockTolerance: 30 });
    return payload;
  } catch (e) {
    if (e instanceof joseErrors.JOSEError) throw new RequestObjectError('The request object’s signature or dates do not check out.');
    throw e;
  }
}

/** The authorization request's parameters with the request object's superseding them, the `request` itself removed. */
export async function mergeRequestObject(
  deps: RemoteJwksDeps,
  instance: InstanceContext,
  app: ApplicationRow,
  params: Record<string, string | string[]>,
): Promise<Record<string, string | string[]>> {
  const jwt = params.request;
  if (typeof jwt !== 'string' || jwt.length > MAX_REQUEST_OBJECT) throw new RequestObjectError('request is one JWT of at most 16 KiB.');
  const payload = await verified(deps, instance, app, jwt);
  if (payload.iss !== undefined && payload.iss !== app.id) throw new RequestObjectError('The request object’s iss is not the client_id.');
  if (payload.client_id !== undefined && payload.client_id !== app.id)
    throw new RequestObjectError('The request object’s client_id differs from the request’s.');
  if (payload.aud !== undefined) {
    const aud = Array.isArray(payload.aud) ? payload.aud : [payload.aud];
    if (!aud.includes(instance.fapiUrl)) throw new RequestObjectError('The request object’s aud is not this issuer.');
  }
  if (
    typeof payload.response_type === 'string' &&
    typeof params.response_type === 'string' &&
    payload.response_type !== params.response_type
  ) {
    throw new RequestObjectError('The request object’s response_type differs from the request’s.');
  }
  const { request: _request, ...merged } = params;
  for (const [k, v] of Object.entries(payload)) {
    if (ENVELOPE.has(k) || v === null || v === undefined) continue;
    if (typeof v === 'string') merged[k] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') merged[k] = String(v);
    else merged[k] = JSON.stringify(v);
  }
  return merged;
}
