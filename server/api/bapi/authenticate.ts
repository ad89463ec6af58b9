import type { Context } from 'hono';
import type { Deps, ResolvedKey } from '../../deps';
import { AppError } from '../../http/errors';
import { bearerToken, clientIp } from '../../http/request-context';
import { enforceLimit, rateLimitHeaders } from '../../limits/rate-limit';
import { resolveSecretKey } from '../../keys/secret-keys';
import { budgetRule } from '../../limits/policy';
import { grants, type Scope } from '../../keys/scopes';
import { setAnswerHeader } from '../../http/answer-headers';

export interface BapiAuth {
  instance: ResolvedKey['instance'];
  keyId: string;
  scopes: string[];
}

/** No key at all (the OpenAPI document). */
export const NO_KEY = 'public' as const;
/** Any valid key of the instance, no scope and no rate limit (the JWKS). */
export const ANY_KEY = 'any_key' as const;
export interface BapiGuard {
  scope: Scope | typeof NO_KEY | typeof ANY_KEY;
  /** A further scope some requests need (minting with `actor` needs impersonation:write), checked before any replay. */
  also?: { scope: Scope; when(body: unknown): boolean };
}

/** The request's key resolved once: the network ACL guard asks for its instance before authenticate checks it. */
const resolvedKeys = new WeakMap<Context, Promise<ResolvedKey>>();
function resolveRequestKey(deps: Deps, c: Context, secret: string): Promise<ResolvedKey> {
  let key = resolvedKeys.get(c);
  if (!key) resolvedKeys.set(c, (key = resolveSecretKey(deps, secret)));
  return key;
}

/** The instance a request's key belongs to, for the network ACL guard; null when the key does not resolve (authenticate answers that). */
export async function bapiInstanceId(deps: Deps, c: Context): Promise<string | null> {
  const secret = bearerToken(c.req.header('authorization'));
  if (!secret) return null;
  return resolveRequestKey(deps, c, secret).then(
    (key) => key.instance.id,
    () => null,
  );
}

/** Contract rules 1–5: 401 UNAUTHENTICATED, 401 INVALID_KEY, 429 RATE_LIMITED, 403 SCOPE_MISSING. */
export async function authenticateSecretKey(deps: Deps, c: Context, guard: BapiGuard): Promise<BapiAuth | null> {
  if (guard.scope === NO_KEY) return null;
  const header = c.req.header('authorization');
  if (!header) throw new AppError('UNAUTHENTICATED', { message: 'Send your secret key as "Authorization: Bearer sk_…".' });
  const secret = bearerToken(header);
  if (!secret) throw new AppError('UNAUTHENTICATED', { message: 'The Authorization header must be "Bearer <secret key>".' });
  const key = await resolveRequestKey(deps, c, secret);
  const auth = { instance: key.instance, keyId: key.keyId, scopes: key.scopes };
  if (guard.scope === ANY_KEY) return auth;

  const rule = await budgetRule(deps, key.instance, 'bapi_per_key');
  const request = { ip: clientIp(c, deps.config), userAgent: c.req.header('user-agent') ?? null };
  const decision = await enforceLimit(deps, 'bapi', rule, key.keyId, { instanceId: key.instance.id, actor: `key:${key.keyId}`, request });
  for (const [name, value] of Object.entries(rateLimitHeaders(decision))) setAnswerHeader(c, name, value);

  requireScope(key.scopes, guard.scope);
  return auth;
}

function requireScope(held: string[], scope: Scope) {
  if (!grants(held, scope)) {
    throw new AppError('SCOPE_MISSING', { message: `This key lacks the ${scope} scope.`, meta: { required_scope: scope } });
  }
}

/** The guard's further scope, for requests whose body needs it. */
export function authorizeSecretKey(auth: BapiAuth | null, guard: BapiGuard, body: unknown) {
  if (auth && guard.also?.when(body)) requireScope(auth.scopes, guard.also.scope);
}
