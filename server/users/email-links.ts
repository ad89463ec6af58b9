import type { Deps } from '../deps';
import { AppError, validationError } from '../http/errors';
import { originOf } from '../http/origin';
import type { InstanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';
import { REASONS } from '../instances/reasons';
import { describeRequest } from '../sessions/user-agent';

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
  return (
    instance.settings.allowed_origins.some((o) => originOf(o) === origin) || isAllowedRedirect(instance.settings, instance.fapiUrl, url)
  );
}

/** The `redirect_url` a link is asked with, refused (422 redirect_url_not_allowed) when it is no page of the app. */
export function assertAppUrl(instance: Instance, url: string | undefined): void {
  if (url !== undefined && !isAllowedAppUrl(instance, url)) {
    throw validationError(
      'redirect_url',
      REASONS.redirect_url_not_allowed,
      'redirect_url is not one of the instance’s allowed origins or redirect URLs.',
    );
  }
}

/**
 * A link asked for to verify an address (a sign-up's, or one added to an account): the instance
 * must send links, and the page it lands on is required and must be the app's (Clerk's contract).
 */
export function assertLinkAsked(instance: Instance, redirectUrl: string | undefined): asserts redirectUrl is string {
  if (!instance.settings.sign_in_methods.email_link)
    throw validationError('strategy', 'strategy_not_allowed', 'This application does not send email links.');
  if (!redirectUrl)
    throw validationError('redirect_url', 'required', 'An email link needs redirect_url: the app’s page it lands on once opened.');
  assertAppUrl(instance, redirectUrl);
}

/** What sendCode needs to email a link for a flow: its URL, and when, where from and on what device it was asked for (named in the email). */
export const emailLink = (
  deps: Pick<Deps, 'clock' | 'geoip'>,
  instance: Instance,
  flowId: string,
  asked: { redirectUrl?: string; ip?: string | null; userAgent?: string | null },
) => ({ linkUrl: (secret: string) => emailLinkUrl(instance, flowId, secret, asked.redirectUrl), requested: describeRequest(deps, asked) });

/** The link the email carries: the attempt's id and the secret, and the page to land on. */
function emailLinkUrl(instance: Instance, attemptId: string, secret: string, redirectUrl?: string): string {
  const url = new URL(`${instance.fapiUrl}/v1/verify`);
  url.searchParams.set('token', `${attemptId}.${secret}`);
  if (redirectUrl) url.searchParams.set('redirect_url', redirectUrl);
  return url.href;
}

export type LinkOutcome = 'verified' | 'expired' | 'failed' | 'client_mismatch';

/** What opening a link did: Clerk's `__clerk_status`, the opener's new client token (same browser only), the session it made. */
export interface LinkRedemption {
  status: LinkOutcome;
  clientToken: string | null;
  sessionId: string | null;
}

/** A link's token: the id of the flow it belongs to (`sia_`, `sua_`, `idn_`…), a dot, the secret. */
export function splitLinkToken(token: string): { id: string; secret: string } | null {
  const dot = token.indexOf('.');
  return dot < 1 ? null : { id: token.slice(0, dot), secret: token.slice(dot + 1) };
}

type Redeemed = { ok: true; clientToken: string | null; sessionId: string | null } | { ok: false; error: AppError };

/**
 * Opening an emailed link, whatever it verifies. `load` finds the flow the link belongs to (null:
 * gone, done or abandoned: `expired`) and says whether the opener is the browser that asked for
 * it; the instance must still take links; with `sign_in_methods.email_link_same_browser` another
 * browser is `client_mismatch` and the link stays unused. `redeem` checks the secret (verification
 * codes: single use, 10 minutes, 5 wrong tries) and completes the flow in one transaction; a
 * wrong secret is committed (its try counts) and answered `failed`, a used or expired one
 * `expired`. A refusal (AppError) is `failed`: opening a link never throws for a bad link.
 */
export async function redeemLink<F>(
  deps: Deps,
  instance: Pick<InstanceContext, 'settings'>,
  o: { load: () => Promise<{ flow: F; sameBrowser: boolean } | null>; redeem: (d: Deps, flow: F) => Promise<Redeemed> },
): Promise<LinkRedemption> {
  const done = (status: LinkOutcome, clientToken: string | null = null, sessionId: string | null = null) => ({
    status,
    clientToken,
    sessionId,
  });
  const refused = (err: unknown) => {
    if (err instanceof AppError) return done('failed');
    throw err;
  };
  const found = await o.load().catch(refused);
  if (found === null) return done('expired');
  if ('status' in found) return found;
  const methods = instance.settings.sign_in_methods;
  if (!methods.email_link) return done('failed');
  if (methods.email_link_same_browser && !found.sameBrowser) return done('client_mismatch');
  return deps.db
    .transaction(async (tx) => {
      const out = await o.redeem({ ...deps, db: tx }, found.flow);
      if (!out.ok) return done(out.error.code === 'CODE_EXPIRED' ? 'expired' : 'failed');
      return done('verified', out.clientToken, out.sessionId);
    })
    .catch(refused);
}

/** Where the browser that opened a link goes: the app's page (still allowed) with Clerk's parameters, else the hosted page. */
export function afterLinkUrl(
  instance: Instance,
  outcome: { status: LinkOutcome; sessionId?: string | null },
  redirectUrl: string | undefined,
): string {
  if (!redirectUrl || !isAllowedAppUrl(instance, redirectUrl)) return `${instance.fapiUrl}/sign-in/link-verified?status=${outcome.status}`;
  const url = new URL(redirectUrl);
  url.searchParams.set('__clerk_status', outcome.status);
  if (outcome.sessionId) url.searchParams.set('__clerk_created_session', outcome.sessionId);
  return url.href;
}
