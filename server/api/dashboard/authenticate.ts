import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import type { OperatorRole } from '../../db/schema';
import { AppError, notFound } from '../../http/errors';
import { isId } from '../../db/ids';
import { clientIp } from '../../http/request-context';
import { instanceContext, type Instance, type InstanceContext } from '../../instances/instances';
import { platformContext } from '../../instances/platform';
import { clientCookieSpec, CONSOLE_CLIENT_COOKIE, findClient } from '../../sessions/clients';
import { resolveMe } from '../../users/me';
import { accountInstance, membershipRole, roleAtLeast } from '../../operators/operators';
import { requestOrigin, SAFE_METHODS } from '../../http/origin';
import { setAnswerHeader } from '../../http/answer-headers';

/**
 * Dashboard API credentials: the console session. The console signs in on the platform
 * instance's FAPI, which keeps its client in the `__console_client` cookie at `Path=/`;
 * here that cookie → the client → its active live session (as the FAPI's me-surface picks
 * it; a pending session is 403 `session_pending`) → the operator (a platform user).
 *
 * Guard of a route: `public` (no session: setup), `operator` (a session, no account),
 * or the least role the operator needs in the route's `:accountId`. An account the
 * operator is not a member of, and an instance outside that account, are 404 NOT_FOUND —
 * the same body as a missing one. Too low a role is 403 FORBIDDEN (`role_required`).
 *
 * CSRF: every write (any method but GET/HEAD/OPTIONS) must carry the console's origin
 * (PUBLIC_URL's) in `Origin`, or without Origin in `Referer`; otherwise 403
 * ORIGIN_NOT_ALLOWED. Only the console calls this API, from its own origin, so nothing
 * legitimate is refused, and no other site can make a signed-in browser write.
 */
export type ConsoleGuard = { role: 'public' | 'operator' | OperatorRole };
export const PUBLIC: ConsoleGuard = { role: 'public' };
export const OPERATOR: ConsoleGuard = { role: 'operator' };
export const VIEWER: ConsoleGuard = { role: 'viewer' };
export const ADMIN: ConsoleGuard = { role: 'admin' };
export const OWNER: ConsoleGuard = { role: 'owner' };

export interface ConsoleAuth {
  platform: InstanceContext;
  /** The signed-in operator (a platform user id), null on public routes without a session. */
  operatorId: string | null;
  sessionId: string | null;
  /** The route's account and the operator's role in it. */
  account: { id: string; role: OperatorRole } | null;
  /** The route's instance (of that account). */
  instance: (InstanceContext & { row: Instance }) | null;
  request: { ip: string | null; userAgent: string | null };
  /** Sets the console cookie (after setup or accepting an invitation). */
  setConsoleCookie(token: string): void;
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

function checkConsoleOrigin(c: Context, publicUrl: string) {
  if (SAFE_METHODS.has(c.req.method)) return;
  const origin = requestOrigin(c);
  if (origin && origin === new URL(publicUrl).origin) return;
  throw new AppError('ORIGIN_NOT_ALLOWED', {
    message: origin
      ? `Requests from ${origin} are not allowed on the dashboard API.`
      : 'A dashboard write must send the console’s Origin header.',
    meta: { origin },
  });
}

function consoleCookie(deps: Pick<Deps, 'config'>, platform: InstanceContext, token: string | null) {
  const url = new URL(deps.config.PUBLIC_URL);
  const secure = !(url.protocol === 'http:' && LOCAL_HOSTS.has(url.hostname));
  const { name, path } = clientCookieSpec(platform);
  const maxAge = token === null ? 0 : platform.settings.session_lifetime_seconds;
  return `${name}=${token ?? ''}; Path=${path}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}; Max-Age=${maxAge}`;
}

export async function authenticateConsole(deps: Deps, c: Context, guard: ConsoleGuard): Promise<ConsoleAuth> {
  setAnswerHeader(c, 'cache-control', 'no-store');
  const platform = await platformContext(deps);
  const auth: ConsoleAuth = {
    platform,
    operatorId: null,
    sessionId: null,
    account: null,
    instance: null,
    request: { ip: clientIp(c, deps.config), userAgent: c.req.header('user-agent') ?? null },
    setConsoleCookie: (token) => setAnswerHeader(c, 'set-cookie', consoleCookie(deps, platform, token)),
  };

  const token = getCookie(c, CONSOLE_CLIENT_COOKIE);
  const found = token ? await findClient(deps, platform, token) : null;
  if (found?.client) {
    const me = await resolveMe(deps, { instance: platform, client: found.client, bearer: null }, {}).catch((e: unknown) => {
      // Public routes work signed out; elsewhere the refusal stands.
      if (guard.role === 'public') return null;
      throw e;
    });
    if (me) {
      auth.operatorId = me.userId;
      auth.sessionId = me.sessionId;
    }
  } else if (token) {
    setAnswerHeader(c, 'set-cookie', consoleCookie(deps, platform, null));
  }
  if (guard.role !== 'public' && !auth.operatorId) {
    throw new AppError('UNAUTHENTICATED', { message: 'Sign in to the console first.' });
  }
  checkConsoleOrigin(c, deps.config.PUBLIC_URL);
  if (guard.role === 'public' || guard.role === 'operator') return auth;

  const accountId = c.req.param('accountId');
  if (!accountId || !isId('acct', accountId)) throw notFound('account');
  const role = await membershipRole(deps, auth.operatorId!, accountId);
  if (!role) throw notFound('account');
  auth.account = { id: accountId, role };
  const instanceId = c.req.param('instanceId');
  if (instanceId !== undefined) {
    if (!isId('ins', instanceId)) throw notFound('instance');
    const row = await accountInstance(deps, accountId, instanceId);
    auth.instance = { ...(await instanceContext(deps, row.id)), row };
  }
  if (!roleAtLeast(role, guard.role)) {
    throw new AppError('FORBIDDEN', {
      message: `This needs the ${guard.role} role in the account.`,
      meta: { reason: 'role_required', required_role: guard.role, role },
    });
  }
  return auth;
}

/** The instance of a route guarded with an account role and `:instanceId`. */
export function routeInstance(auth: ConsoleAuth) {
  if (!auth.instance) throw notFound('instance');
  return auth.instance;
}
