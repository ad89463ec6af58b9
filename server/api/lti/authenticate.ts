import type { Context } from 'hono';
import { getCookie } from 'hono/cookie';
import type { Deps } from '../../deps';
import { anonymousActor, type Actor, type RequestOrigin } from '../../http/actor';
import { AppError } from '../../http/errors';
import { errorPage, type Protocol } from '../../http/protocol';
import type { SurfaceEnv } from '../../http/request-context';
import { servedFapiUrl } from '../../instances/custom-domain';
import { instanceContext, type InstanceContext } from '../../instances/instances';
import { notFound } from '../../http/errors';
import { clientCookieSpec } from '../../sessions/clients';
import { clientCookie, cookieAttributes, fapiInstanceId } from '../fapi/authenticate';
import { REASONS } from '../../lti/reasons';
import { enforceIpBudget } from '../../limits/policy';
import { setAnswerHeader } from '../../http/answer-headers';

/**
 * The LTI surface's auth: public routes whose id_token is verified by the handler. The
 * platform posts from another site inside an iframe, so nothing here checks the Origin (the
 * FAPI's CSRF guard): the single-use state and nonce bind login and launch. Cookies are
 * `SameSite=None; Secure; Partitioned` so that they survive the iframe.
 */
export interface LtiAuth {
  instance: InstanceContext;
  /** The fapi_url the request came in by (a custom domain's root, or the path under PUBLIC_URL). */
  servedUrl: string;
  cookie(name: string): string | undefined;
  /** A cross-site cookie scoped to the fapi_url's /lti path (the login state). */
  setCookie(name: string, value: string, maxAgeSeconds: number): void;
  /** The browser's `__client` token, if it sent one. */
  clientToken(): string | undefined;
  /** Sets the `__client` cookie for use inside the LMS iframe. */
  issueClientToken(token: string): void;
}

export async function authenticateLti(deps: Deps, c: Context): Promise<LtiAuth> {
  setAnswerHeader(c, 'cache-control', 'no-store');
  const instanceId = fapiInstanceId(c);
  if (!instanceId) throw notFound('instance');
  const instance = await instanceContext(deps, instanceId);
  await enforceIpBudget(deps, c, 'lti', instance, 'federation_per_ip');
  const servedUrl = servedFapiUrl(c.env, deps.config, instance);
  const ltiPath = `${new URL(servedUrl).pathname.replace(/\/$/, '')}/lti`;
  return {
    instance,
    servedUrl,
    cookie: (name) => getCookie(c, name),
    setCookie(name, value, maxAge) {
      setAnswerHeader(
        c,
        'set-cookie',
        `${name}=${value}; ${cookieAttributes(instance, servedUrl, { crossSite: true, path: ltiPath })}; Max-Age=${maxAge}`,
        { append: true },
      );
    },
    clientToken: () => getCookie(c, clientCookieSpec(instance).name),
    issueClientToken(token) {
      setAnswerHeader(
        c,
        'set-cookie',
        clientCookie(instance, token, instance.settings.session_lifetime_seconds, servedUrl, { crossSite: true }),
        {
          append: true,
        },
      );
    },
  };
}

/** Before the id_token is verified, the caller is anonymous; the domain audits the platform once it is known. */
export const ltiActor = (_auth: LtiAuth, request: RequestOrigin): Actor => anonymousActor(request);

/**
 * Form posts in, redirects and HTML out. Every refusal is a 400 page naming the reason (a
 * missing or malformed parameter included), never JSON: a learner sees it inside the LMS.
 */
export const ltiProtocol: Protocol = {
  name: 'html',
  media: ['form'],
  strictForm: true,
  contentType: 'text/html; charset=utf-8',
  renderError: (err, c: Context<SurfaceEnv>) => {
    const input = err.code === 'VALIDATION_FAILED' || err.code === 'MALFORMED_REQUEST' || err.code === 'UNSUPPORTED_MEDIA_TYPE';
    const shown = input
      ? new AppError('LTI_LAUNCH_INVALID', { message: err.message, meta: { reason: REASONS.request_invalid, param: err.meta.param } })
      : err;
    const reason = typeof shown.meta.reason === 'string' ? shown.meta.reason : shown.code.toLowerCase();
    const res = c.html(
      errorPage('This launch could not be completed', `${shown.message} Reason: ${reason} (${shown.code}, ${c.get('requestId')}).`),
      shown.status as 400,
    );
    for (const [k, v] of Object.entries(shown.headers)) res.headers.set(k, v);
    res.headers.set('cache-control', 'no-store');
    return res;
  },
};
