import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { isId } from '../db/ids';
import { constantTimeEqual, sha256Hex } from '../crypto/secrets';
import type { RequestInfo } from '../http/endpoint';
import { findApplication, type ApplicationRow } from './applications';
import { oauthError } from './errors';

type D = Pick<Deps, 'db' | 'clock' | 'caches'>;
const MAX_CREDENTIAL_LENGTH = 512;

export type ClientAuthMethod = 'client_secret_basic' | 'client_secret_post' | 'none';

/** RFC 6749 §2.3.1: Basic credentials are form-encoded before base64 ('+' is a space). */
const formDecode = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));

interface PresentedCredentials {
  method: ClientAuthMethod;
  clientId: string;
  secret: string | null;
}

function presented(authorization: string | undefined, body: { client_id?: string; client_secret?: string }): PresentedCredentials {
  const basic = authorization !== undefined ? /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization) : null;
  if (authorization !== undefined && !basic)
    throw oauthError('invalid_client', 'Client authentication uses HTTP Basic or the request body.', 401);
  if (basic) {
    if (body.client_secret !== undefined) throw oauthError('invalid_request', 'Use one client authentication method, not two.');
    const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw oauthError('invalid_client', 'Basic credentials are client_id:client_secret.', 401);
    let clientId: string;
    let secret: string;
    try {
      clientId = formDecode(decoded.slice(0, colon));
      secret = formDecode(decoded.slice(colon + 1));
    } catch {
      throw oauthError('invalid_client', 'Basic credentials are not form-encoded.', 401);
    }
    if (body.client_id !== undefined && body.client_id !== clientId)
      throw oauthError('invalid_request', 'client_id differs from the authenticated client.');
    return { method: 'client_secret_basic', clientId, secret };
  }
  if (body.client_id === undefined)
    throw oauthError(
      'invalid_client',
      'Authenticate the client (client_secret_basic, client_secret_post, or client_id for a public client).',
      401,
    );
  return {
    method: body.client_secret === undefined ? 'none' : 'client_secret_post',
    clientId: body.client_id,
    secret: body.client_secret ?? null,
  };
}

/**
 * The app a token, revocation or introspection request authenticates as: a confidential
 * app by its secret (Basic or body), a public app by its client_id alone. Every failure
 * is 401 invalid_client, audited with the client_id it claimed.
 */
export async function authenticateClient(
  deps: D,
  instanceId: string,
  authorization: string | undefined,
  body: { client_id?: string; client_secret?: string },
  request: RequestInfo,
): Promise<{ app: ApplicationRow; method: ClientAuthMethod }> {
  const creds = presented(authorization, body);
  const fail = async (why: string) => {
    await audit(deps, {
      instanceId,
      actor: `oauth_client:${creds.clientId.slice(0, 64)}`,
      actorKind: 'oauth_client',
      action: 'oauth_client.authentication_failed',
      target: isId('oa', creds.clientId) ? creds.clientId : null,
      ip: request.ip,
      userAgent: request.userAgent,
      details: { method: creds.method, why },
    });
    return oauthError('invalid_client', 'Client authentication failed.', 401);
  };
  if (creds.clientId.length > MAX_CREDENTIAL_LENGTH || (creds.secret?.length ?? 0) > MAX_CREDENTIAL_LENGTH) throw await fail('too_long');
  const app = await findApplication(deps, instanceId, creds.clientId);
  if (!app) throw await fail('unknown_client');
  if (app.public) {
    if (creds.secret !== null) throw await fail('public_client_with_secret');
    return { app, method: 'none' };
  }
  if (creds.secret === null || app.secretDigest === null) throw await fail('secret_missing');
  if (!constantTimeEqual(sha256Hex(creds.secret), app.secretDigest)) throw await fail('secret_mismatch');
  return { app, method: creds.method };
}
