import type { Context } from 'hono';
import type { Deps } from '../deps';
import { AppError } from '../http/errors';
import type { ResolvedKey } from './secret-keys';
import { resolveSecretKey } from './secret-keys';
import { grants, type Scope } from './scopes';

export interface BapiAuth {
  instance: ResolvedKey['instance'];
  keyId: string;
  scopes: string[];
  /** How audit entries name this caller. */
  actor: string;
}

/** No key at all (the OpenAPI document). */
export const PUBLIC = 'public' as const;
/** Any valid key of the instance, no scope and no rate limit (the JWKS). */
export const ANY_KEY = 'any_key' as const;
export interface BapiGuard {
  scope: Scope | typeof PUBLIC | typeof ANY_KEY;
}

export const BAPI_WINDOW_MS = 10_000;

export function bapiKeyBudget(deps: Deps, environment: 'test' | 'live'): number {
  return deps.config.BAPI_RATE_LIMIT ?? (environment === 'live' ? 1000 : 100);
}

const BEARER_RE = /^Bearer\s+(\S+)$/i;

/** Contract rules 1–5: 401 UNAUTHENTICATED, 401 INVALID_KEY, 429 RATE_LIMITED, 403 SCOPE_MISSING. */
export async function authenticateSecretKey(deps: Deps, c: Context, guard: BapiGuard): Promise<BapiAuth | null> {
  if (guard.scope === PUBLIC) return null;
  const header = c.req.header('authorization');
  if (!header) throw new AppError('UNAUTHENTICATED', { message: 'Send your secret key as "Authorization: Bearer sk_…".' });
  const secret = BEARER_RE.exec(header)?.[1];
  if (!secret) throw new AppError('UNAUTHENTICATED', { message: 'The Authorization header must be "Bearer <secret key>".' });
  const key = await resolveSecretKey(deps, secret);
  const auth = { instance: key.instance, keyId: key.keyId, scopes: key.scopes, actor: `key:${key.keyId}` };
  if (guard.scope === ANY_KEY) return auth;

  const now = deps.clock.now();
  const rule = { name: 'bapi_key', limit: bapiKeyBudget(deps, key.instance.environment), windowMs: BAPI_WINDOW_MS };
  const decision = await deps.limiter.check(rule, key.keyId, now);
  c.header('ratelimit-limit', String(decision.limit));
  c.header('ratelimit-remaining', String(decision.remaining));
  c.header('ratelimit-reset', String(decision.retryAfter));
  if (!decision.allowed) {
    deps.metrics.limiterRejections.inc({ surface: 'bapi', limit: rule.name });
    throw new AppError('RATE_LIMITED', {
      meta: { retry_after: decision.retryAfter },
      headers: { 'retry-after': String(decision.retryAfter) },
    });
  }

  if (!grants(key.scopes, guard.scope)) {
    throw new AppError('SCOPE_MISSING', {
      message: `This key lacks the ${guard.scope} scope.`,
      meta: { required_scope: guard.scope },
    });
  }
  return auth;
}
