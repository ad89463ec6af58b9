import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import { AppError, notFound } from '../../http/errors';
import { enforceLimit } from '../../http/rate-limit';
import { isId } from '../../http/ids';
import type { LimitRule } from '../../http/limiter';
import { clientIp } from '../../http/request-context';
import { fapiAddressOf, instanceContext, type InstanceContext } from '../../instances/instances';
import { clientCookieSpec, CUSTOMER_CLIENT_COOKIE, findClient, type ClientRow } from '../../sessions/clients';

/**
 * FAPI credentials. The instance comes from the path (`/fapi/<instance_id>`); the
 * publishable key, when sent (`x-publishable-key` or `?publishable_key=`), must be that
 * instance's. The client travels as the `__client` cookie (web: HttpOnly, SameSite=Lax,
 * scoped to the fapi_url path, Secure except plain-http localhost) or as
 * `Authorization: Bearer ct_…` (native: no cookie is ever set; a new token comes back in
 * the `Authorization` response header). A request is native when it carries an
 * Authorization header or `?_is_native=1`.
 */
export interface FapiGuard {
  /** `required`: the publishable key must be sent; `optional`: it is checked only when sent. */
  key: 'required' | 'optional';
  /** Resolve the client from its cookie or bearer token. An invalid one is ignored (and its cookie cleared). */
  client: boolean;
  /** A per-IP budget (DESIGN.md, "Default limits"). */
  limit?: keyof typeof FAPI_LIMITS;
  /** Cache-Control of a successful answer; everything else is no-store. */
  cache?: string;
}

export interface FapiAuth {
  instance: InstanceContext;
  mode: 'web' | 'native';
  /** The client of this request, or null for a signed-out visitor (or when the route does not resolve clients). */
  client: ClientRow | null;
  /** The raw token `client` was found by, so that a sign-in can renew its cookie. */
  clientToken: string | null;
  /** Hands a client token to the caller: the cookie (web) or the Authorization response header (native). */
  issueClientToken(token: string): void;
  /** Forgets the client on the caller's side (web: expires the cookie). */
  clearClientToken(): void;
}

export const CLIENT_COOKIE = CUSTOMER_CLIENT_COOKIE;

export const FAPI_LIMITS = {
  sign_in: { name: 'fapi_sign_in', limit: 5, windowMs: 10_000 },
  sign_up: { name: 'fapi_sign_up', limit: 5, windowMs: 10_000 },
  /** Password and code attempts (first and second factor, sign-up verification, new password). */
  attempt: { name: 'fapi_attempt', limit: 3, windowMs: 10_000 },
  /** Verification-code sends; the per-address reissue caps apply besides (server/auth/codes.ts). */
  verification: { name: 'fapi_verification', limit: 5, windowMs: 10_000 },
} as const satisfies Record<string, LimitRule>;

const BEARER_RE = /^Bearer\s+(\S+)$/i;
const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const MAX_KEY_LENGTH = 512;

function cookieAttributes(instance: InstanceContext): string {
  const url = new URL(instance.fapiUrl);
  const secure = !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
  return `Path=${clientCookieSpec(instance).path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}

/** `__client` at the fapi_url path; the platform instance's is `__console_client` at `/` (sessions/clients.ts). */
export const clientCookie = (instance: InstanceContext, token: string, maxAgeSeconds: number) =>
  `${clientCookieSpec(instance).name}=${token}; ${cookieAttributes(instance)}; Max-Age=${maxAgeSeconds}`;
export const clearedClientCookie = (instance: InstanceContext) => `${clientCookieSpec(instance).name}=; ${cookieAttributes(instance)}; Max-Age=0`;

function checkPublishableKey(c: Context, instance: InstanceContext, required: boolean) {
  const sent = [c.req.header('x-publishable-key'), ...(c.req.queries('publishable_key') ?? [])].filter((k) => k !== undefined);
  if (sent.length === 0) {
    if (!required) return;
    throw new AppError('PUBLISHABLE_KEY_INVALID', {
      message: 'Send the publishable key as the x-publishable-key header or the publishable_key query parameter.',
      meta: { reason: 'missing' },
    });
  }
  for (const key of sent) {
    if (key.length > MAX_KEY_LENGTH || !fapiAddressOf(key)) {
      throw new AppError('PUBLISHABLE_KEY_INVALID', {
        message: 'The publishable key is malformed; it looks like pk_test_… or pk_live_….',
        meta: { reason: 'malformed' },
      });
    }
    if (key !== instance.publishableKey) {
      throw new AppError('PUBLISHABLE_KEY_INVALID', {
        message: 'The publishable key is not this instance’s.',
        meta: { reason: 'wrong_instance' },
      });
    }
  }
}

const isNativeFlag = (v: string | undefined) => v === '1' || v === 'true';

export async function authenticateFapi(deps: Deps, c: Context, guard: FapiGuard): Promise<FapiAuth> {
  c.header('cache-control', 'no-store');
  const instanceId = c.req.param('instanceId');
  if (!instanceId || !isId('ins', instanceId)) throw notFound('instance');
  const instance = await instanceContext(deps, instanceId);
  checkPublishableKey(c, instance, guard.key === 'required');

  if (guard.limit) {
    const ip = clientIp(c, deps.config.TRUST_PROXY);
    // Without a peer address (a host that hides it) there is nothing to count per IP.
    if (ip) {
      await enforceLimit(deps, 'fapi', FAPI_LIMITS[guard.limit], `${instance.id}:${ip}`);
    }
  }

  const authorization = c.req.header('authorization');
  const mode = authorization !== undefined || isNativeFlag(c.req.query('_is_native')) ? 'native' : 'web';
  const auth: FapiAuth = {
    instance,
    mode,
    client: null,
    clientToken: null,
    issueClientToken(token) {
      if (mode === 'native') c.header('authorization', `Bearer ${token}`);
      else c.header('set-cookie', clientCookie(instance, token, instance.settings.session_lifetime_seconds));
    },
    clearClientToken() {
      if (mode === 'web') c.header('set-cookie', clearedClientCookie(instance));
    },
  };
  if (!guard.client) return auth;

  const presented =
    authorization !== undefined ? (BEARER_RE.exec(authorization)?.[1] ?? '') : mode === 'web' ? getCookie(c, clientCookieSpec(instance).name) : undefined;
  if (presented === undefined) return auth;
  const found = await findClient(deps, instance, presented);
  if (found.client) {
    auth.client = found.client;
    auth.clientToken = presented;
  } else {
    // Never 401 for a bad client: it is a signed-out visitor, and the stale cookie goes.
    auth.clearClientToken();
  }
  return auth;
}
