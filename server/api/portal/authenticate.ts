import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import type { portalLinks, PortalIntent } from '../../db/schema';
import { AppError, notFound } from '../../http/errors';
import { requestOrigin, SAFE_METHODS } from '../../http/origin';
import { servedFapiUrl } from '../../instances/custom-domain';
import { instanceContext, type InstanceContext } from '../../instances/instances';
import { enforceIpBudget } from '../../limits/policy';
import { resolvePortalSession } from '../../portal/links';
import { REASONS } from '../../portal/reasons';
import { cookieAttributes, fapiInstanceId } from '../fapi/authenticate';
import { setAnswerHeader } from '../../http/answer-headers';

/**
 * The admin portal's API under each fapi_url (`/v1/portal/…`), called by the portal pages
 * of the same origin. Credentials: the `__portal` cookie (HttpOnly, SameSite=Lax, the
 * fapi_url's path) that opening a link set. A route's guard names the intents whose
 * sessions may use it; a session of another intent is 403 `intent_not_allowed`, and every
 * handler acts on the session's organization only (ids of anything else are 404).
 *
 * CSRF: every write must carry this fapi_url's origin in `Origin` (or, without it, `Referer`),
 * else 403 ORIGIN_NOT_ALLOWED — only the portal pages call this API, from that origin.
 */
export type PortalGuard = { open: true } | { intents: readonly PortalIntent[] | 'any' };

type PortalLink = typeof portalLinks.$inferSelect;

export interface PortalAuth {
  instance: InstanceContext;
  servedUrl: string;
  /** The session's link (its organization and intent); null on the route that opens one. */
  link: PortalLink | null;
  setCookie(name: string, value: string, maxAgeSeconds: number, opts?: { sameSiteNone?: boolean }): void;
}

/** The auth a session route's handler receives: the link is resolved. */
export interface PortalSessionAuth extends PortalAuth {
  link: PortalLink;
}

const PORTAL_COOKIE = '__portal';
const cookiePath = (servedUrl: string) => new URL(servedUrl).pathname || '/';

export function portalCookie(instance: InstanceContext, servedUrl: string, token: string, maxAgeSeconds: number) {
  return `${PORTAL_COOKIE}=${token}; ${cookieAttributes(instance, servedUrl, { path: cookiePath(servedUrl) })}; Max-Age=${maxAgeSeconds}`;
}

function checkPortalOrigin(c: Context, servedUrl: string) {
  if (SAFE_METHODS.has(c.req.method)) return;
  const origin = requestOrigin(c);
  if (origin && origin === new URL(servedUrl).origin) return;
  throw new AppError('ORIGIN_NOT_ALLOWED', {
    message: origin
      ? `Requests from ${origin} are not allowed on the admin portal.`
      : 'A portal change must send the portal’s Origin header.',
    meta: { origin },
  });
}

export async function authenticatePortal(deps: Deps, c: Context, guard: PortalGuard): Promise<PortalAuth> {
  setAnswerHeader(c, 'cache-control', 'no-store');
  const instanceId = fapiInstanceId(c);
  if (!instanceId) throw notFound('instance');
  const instance = await instanceContext(deps, instanceId);
  const servedUrl = servedFapiUrl(c.env, deps.config, instance);
  checkPortalOrigin(c, servedUrl);
  const setCookie: PortalAuth['setCookie'] = (name, value, maxAgeSeconds, opts = {}) => {
    const attributes = opts.sameSiteNone
      ? `Path=${cookiePath(servedUrl)}; HttpOnly; Secure; SameSite=None`
      : cookieAttributes(instance, servedUrl, { path: cookiePath(servedUrl) });
    setAnswerHeader(c, 'set-cookie', `${name}=${value}; ${attributes}; Max-Age=${maxAgeSeconds}`, { append: true });
  };
  if ('open' in guard) {
    // Guessing tokens costs the federation budget of the address.
    await enforceIpBudget(deps, c, 'portal', instance, 'federation_per_ip');
    return { instance, servedUrl, link: null, setCookie };
  }
  const link = await resolvePortalSession(deps, instance.id, getCookie(c, PORTAL_COOKIE));
  if (guard.intents !== 'any' && !guard.intents.includes(link.intent)) {
    throw new AppError('FORBIDDEN', {
      message: `This portal session is for ${link.intent}; it cannot do this.`,
      meta: { reason: REASONS.intent_not_allowed },
    });
  }
  return { instance, servedUrl, link, setCookie };
}
