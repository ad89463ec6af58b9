import { validationError } from '../http/errors';
import { originOf } from '../http/origin';
import type { InstanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';
import { REASONS } from '../instances/reasons';

/**
 * Emailed links (`GET {fapi_url}/v1/verify?token=…`) and where they send the browser that
 * opens one: the app's page it was asked from (`redirect_url`, Clerk's contract: with
 * `__clerk_status` and, once a sign-in or sign-up completed, `__clerk_created_session`), else
 * the hosted page that tells the outcome.
 */
type Instance = Pick<InstanceContext, 'settings' | 'fapiUrl'>;

/** An app's page: on one of the instance's allowed origins, or under one of its redirect URLs. */
export function isAllowedAppUrl(instance: Instance, url: string): boolean {
  const origin = originOf(url);
  if (!origin) return false;
  return instance.settings.allowed_origins.some((o) => originOf(o) === origin) || isAllowedRedirect(instance.settings, instance.fapiUrl, url);
}

/** The `redirect_url` a link is asked with, refused (422 redirect_url_not_allowed) when it is no page of the app. */
export function assertAppUrl(instance: Instance, url: string | undefined): void {
  if (url !== undefined && !isAllowedAppUrl(instance, url)) {
    throw validationError('redirect_url', REASONS.redirect_url_not_allowed, 'redirect_url is not one of the instance’s allowed origins or redirect URLs.');
  }
}

/** The link the email carries: the attempt's id and the secret, and the page to land on. */
export function emailLinkUrl(instance: Instance, attemptId: string, secret: string, redirectUrl?: string): string {
  const url = new URL(`${instance.fapiUrl}/v1/verify`);
  url.searchParams.set('token', `${attemptId}.${secret}`);
  if (redirectUrl) url.searchParams.set('redirect_url', redirectUrl);
  return url.href;
}

export type LinkOutcome = 'verified' | 'expired' | 'failed' | 'client_mismatch';

/** Where the browser that opened a link goes: the app's page (still allowed) with Clerk's parameters, else the hosted page. */
export function afterLinkUrl(instance: Instance, outcome: { status: LinkOutcome; sessionId?: string | null }, redirectUrl: string | undefined): string {
  if (!redirectUrl || !isAllowedAppUrl(instance, redirectUrl)) return `${instance.fapiUrl}/sign-in/link-verified?status=${outcome.status}`;
  const url = new URL(redirectUrl);
  url.searchParams.set('__clerk_status', outcome.status);
  if (outcome.sessionId) url.searchParams.set('__clerk_created_session', outcome.sessionId);
  return url.href;
}
