import type { Deps } from '../deps';
import type { Actor } from '../http/actor';
import { htmlPage, redirect, type RequestInfo } from '../http/endpoint';
import { isAppError } from '../http/errors';
import type { LimitRule } from '../infra/limiter';
import { enforceLimit } from '../limits/rate-limit';
import { LOCALE_COOKIE } from '../../i18n/locales';
import { getUser } from '../users/users';
import { findApplication } from './applications';
import { displayName, recordConsent, signedIn } from './authorize';
import { answerDeviceRequest, formatUserCode, normalizeUserCode, pendingDeviceRequest, verificationUri } from './device';
import { deviceConfirmPage, deviceDonePage, deviceEntryPage, pageLocale } from './pages';
import type { OidcAuth } from './oidc-caller';
import { parseScope } from './scopes';

/**
 * User codes are short (≈35 bits): every code entered spends the browser's network's and the
 * user's budgets, so guessing one among the live codes takes longer than codes live.
 */
export const DEVICE_ENTRY_LIMITS = {
  perIp: { name: 'oauth_device_entry_ip', limit: 30, windowMs: 10 * 60_000 } satisfies LimitRule,
  perUser: { name: 'oauth_device_entry_user', limit: 10, windowMs: 10 * 60_000 } satisfies LimitRule,
};

const NO_STORE = { 'cache-control': 'no-store' };

export interface DeviceVerificationInput {
  auth: OidcAuth;
  request: RequestInfo;
  actor: Actor;
  userCode: string | undefined;
  /** Only from the page's own form (POST): a link cannot answer for the user. */
  decision?: string;
  method: 'GET' | 'POST';
}

/**
 * The verification page (RFC 8628 §3.3) at {fapi_url}/oauth2/device: the hosted sign-in first
 * when the browser has no session, then the code (typed, or from verification_uri_complete),
 * then the app's name and scopes with Allow and Deny; the answer is final.
 */
export async function deviceVerification(deps: Deps, input: DeviceVerificationInput) {
  const { auth, request } = input;
  const { instance } = auth;
  const action = verificationUri(instance);
  const user = await signedIn(deps, auth);
  const locale = (userLocale: string | null = null) =>
    pageLocale({
      cookie: auth.cookie(LOCALE_COOKIE) ?? null,
      userLocale,
      acceptLanguage: request.acceptLanguage,
      instanceDefault: instance.settings.default_locale ?? null,
    });
  if (!user) {
    const back = new URL(action);
    if (input.userCode) back.searchParams.set('user_code', input.userCode.slice(0, 64));
    const signIn = new URL(`${instance.fapiUrl}/sign-in`);
    signIn.searchParams.set('redirect_url', back.toString());
    return redirect(signIn.toString(), input.method === 'POST' ? 303 : 302);
  }
  const l = locale((await getUser(deps, instance.id, user.userId)).locale);
  // An operator acting as the user must not hand a device tokens in the user's name.
  if (user.impersonatedBy) return htmlPage(deviceDonePage(l, 'unavailable'), 403, NO_STORE);
  if (!input.userCode) return htmlPage(deviceEntryPage(l, { action }), 200, NO_STORE);

  try {
    if (request.ip) await enforceLimit(deps, 'oidc', DEVICE_ENTRY_LIMITS.perIp, `${instance.id}:${request.ip}`);
    await enforceLimit(deps, 'oidc', DEVICE_ENTRY_LIMITS.perUser, `${instance.id}:${user.userId}`);
  } catch (e) {
    if (isAppError(e) && e.code === 'RATE_LIMITED')
      return htmlPage(deviceEntryPage(l, { action, message: 'tooMany' }), 429, { ...NO_STORE, ...e.headers });
    throw e;
  }
  const code = normalizeUserCode(input.userCode);
  const pending = code ? await pendingDeviceRequest(deps, instance.id, code) : null;
  const app = pending ? await findApplication(deps, instance.id, pending.applicationId) : null;
  if (!code || !pending || !app)
    return htmlPage(deviceEntryPage(l, { action, userCode: input.userCode.slice(0, 20), message: 'invalid' }), 400, NO_STORE);

  const scopes = parseScope(pending.scope);
  if (input.method === 'POST' && (input.decision === 'allow' || input.decision === 'deny')) {
    const answered = await answerDeviceRequest(
      deps,
      instance.id,
      pending,
      input.decision === 'allow'
        ? {
            decision: 'allow',
            userId: user.userId,
            authTime: user.authTime,
            context: { acr: user.acr, amr: user.amr, sid: user.sessionId, claims: null },
          }
        : { decision: 'deny', userId: user.userId },
      input.actor,
    );
    if (!answered) return htmlPage(deviceEntryPage(l, { action, message: 'invalid' }), 400, NO_STORE);
    if (input.decision === 'allow' && app.consentScreenEnabled)
      await recordConsent(deps, instance, { app, scopes }, user.userId, input.actor);
    return htmlPage(deviceDonePage(l, input.decision === 'allow' ? 'approved' : 'denied'), 200, NO_STORE);
  }
  return htmlPage(
    deviceConfirmPage(l, {
      action,
      appName: app.name,
      user: await displayName(deps, instance.id, user.userId),
      scopes,
      userCode: formatUserCode(code),
    }),
    200,
    NO_STORE,
  );
}
