import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint, htmlPage, redirect } from '../../http/endpoint';
import { isAppError, validationError } from '../../http/errors';
import { errorPage } from '../../http/protocol';
import type { FapiAuth } from './authenticate';
import { completeSocialFlow, transferSocialSignIn } from '../../social/flow';
import type { AuditContext } from '../../http/actor';
import type { Deps } from '../../deps';
import { clientView } from '../../sessions/clients';
import { FLOW_TTL_MS, startSocialFlow } from '../../social/flow';
import { bindingFor, setFlowCookie } from '../../auth/flow-binding';
import { mockAuthorizePage, mockConsent, mockConsentBody } from '../../social/mock';

const callbackQuery = z.object({
  state: z.string().max(512).optional(),
  code: z.string().max(4096).optional(),
  error: z.string().max(512).optional(),
  error_description: z.string().max(2048).optional(),
  iss: z.string().max(2048).optional(),
  scope: z.string().max(2048).optional(),
  session_state: z.string().max(2048).optional(),
  authuser: z.string().max(64).optional(),
  prompt: z.string().max(256).optional(),
  hd: z.string().max(256).optional(),
});

/** Apple's form_post answer: the same parameters posted back (plus `user`, its JSON naming the person on the first sign-in). */
const callbackForm = callbackQuery.extend({ user: z.string().max(4096).optional() });

/**
 * FAPI side of social sign-in: `strategy: "oauth_<name>"` on sign-in or sign-up creation
 * answers the provider's authorization URL (`first_factor_verification.
 * external_verification_redirect_url`); the provider sends the browser back to
 * `{fapi_url}/v1/oauth_callback`, which signs in and redirects to the `redirect_url`.
 */
/** Where a social flow lands (server/auth/complete-redirect.ts), and what a provider account without a user does. */
interface SocialStart {
  redirectUrl: string;
  completeRedirectUrl?: string;
  newUser?: 'create' | 'transfer';
}

async function start(
  deps: Deps,
  auth: FapiAuth,
  strategy: string,
  o: SocialStart,
  purpose: 'sign_in' | 'sign_up',
  codeChallenge: string | undefined,
) {
  const binding = bindingFor(auth.mode, codeChallenge);
  const started = await startSocialFlow(deps, auth.instance, auth.client, {
    strategy,
    redirect_url: o.redirectUrl,
    complete_redirect_url: o.completeRedirectUrl,
    purpose,
    new_user: o.newUser,
    binding,
  });
  const token = started.newClientToken ?? auth.clientToken!;
  auth.issueClientToken(token);
  setFlowCookie(auth, started.flow.id, binding, FLOW_TTL_MS, { crossSitePost: false });
  auth.client = started.client;
  auth.clientToken = token;
  const verification = {
    object: 'verification' as const,
    status: 'unverified' as const,
    strategy,
    attempts: 0,
    expire_at: started.flow.expiresAt,
    external_verification_redirect_url: started.url,
  };
  return { started, verification, client: await clientView(deps, auth.instance, started.client) };
}

export async function startSocialSignIn(deps: Deps, auth: FapiAuth, strategy: string, o: SocialStart, codeChallenge?: string) {
  const { started, verification, client } = await start(deps, auth, strategy, o, 'sign_in', codeChallenge);
  const f = started.flow;
  return {
    response: {
      object: 'sign_in_attempt' as const,
      id: f.signInId,
      status: 'needs_first_factor' as const,
      identifier: null,
      supported_identifiers: [],
      supported_first_factors: [{ strategy }],
      supported_second_factors: null,
      step_up_reasons: null,
      first_factor_verification: verification,
      second_factor_verification: null,
      created_session_id: null,
      abandon_at: f.createdAt + FLOW_TTL_MS,
      created_at: f.createdAt,
      updated_at: f.createdAt,
    },
    client,
  };
}

export async function startSocialSignUp(deps: Deps, auth: FapiAuth, strategy: string, o: SocialStart, codeChallenge?: string) {
  const { started, verification, client } = await start(deps, auth, strategy, o, 'sign_up', codeChallenge);
  const f = started.flow;
  return {
    response: { ...socialSignUp(f.signInId, f.createdAt), verifications: { email_address: null, external_account: verification } },
    client,
  };
}

/** A sign-up through a social provider: the attempt the flow announced, waiting for the provider (or, once done, complete). */
const socialSignUp = (id: string, createdAt: number, done: { userId: string; sessionId: string | null } | null = null) => ({
  object: 'sign_up_attempt' as const,
  id,
  status: done ? ('complete' as const) : ('missing_requirements' as const),
  required_fields: [],
  optional_fields: [],
  missing_fields: [],
  unverified_fields: done ? [] : ['external_account'],
  verifications: { email_address: null, external_account: null },
  email_address: null,
  username: null,
  first_name: null,
  last_name: null,
  password_enabled: false,
  unsafe_metadata: {},
  created_user_id: done?.userId ?? null,
  created_session_id: done?.sessionId ?? null,
  abandon_at: createdAt + FLOW_TTL_MS,
  created_at: createdAt,
  updated_at: createdAt,
});

/**
 * `POST /v1/client/sign_ups` with `transfer: true`: the client's social sign-in that found no
 * user (`transferable`) signs a new user up from the provider's identity, on this client.
 */
export async function transferSignUp(deps: Deps, auth: FapiAuth, auditCtx: AuditContext) {
  const done = auth.client ? await transferSocialSignIn(deps, auth.instance, auth.client.id, auditCtx) : null;
  if (!done) throw validationError('transfer', 'invalid_value', 'No sign-in of this client is waiting to be transferred to a sign-up.');
  const { step, userId } = done;
  if (step.clientToken) {
    auth.issueClientToken(step.clientToken);
    auth.clientToken = step.clientToken;
  }
  const attempt = step.attempt;
  const verified = {
    object: 'verification' as const,
    status: 'verified' as const,
    strategy: attempt.firstFactorStrategy ?? 'oauth',
    attempts: 0,
    expire_at: null,
  };
  const response = socialSignUp(attempt.id, attempt.createdAt, { userId, sessionId: attempt.sessionId });
  return {
    response: { ...response, verifications: { email_address: null, external_account: verified } },
    client: await clientView(deps, auth.instance, step.client ?? auth.client),
  };
}

export const oauthCallbacks = {
  /**
   * The provider's redirect back. Success: 303 to the flow's redirect_url with the client's
   * session active (or pending on a second factor: the sign-in attempt id the flow announced
   * then answers GET /v1/client/sign_ins/:id as needs_second_factor). Failure: an HTML page
   * naming the reason; every outcome is in the audit log.
   */
  complete: endpoint<FapiAuth, never, z.output<typeof callbackQuery>>({
    summary: 'Social sign-in callback: the provider redirects here (register {fapi_url}/v1/oauth_callback at the provider)',
    audit: { action: 'social.sign_in', recordedBy: 'domain' },
    query: callbackQuery,
    response: z.unknown(),
    handle: async ({ deps, auth, query, actor, request, raw }) => {
      const rawQuery = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined) as [string, string][]).toString();
      try {
        const browser = { client: auth.client, cookieHeader: raw.header('cookie') };
        const done = await completeSocialFlow(deps, auth.instance, browser, query, rawQuery, {
          ...auditContextOf(actor),
          ip: request.ip,
          userAgent: request.userAgent,
        });
        if (done.kind === 'awaiting_claim')
          return redirect(done.redirectUrl, 303, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
        const token = done.step.clientToken ?? auth.clientToken;
        if (token) auth.issueClientToken(token);
        return redirect(done.redirectUrl, 303, { 'cache-control': 'no-store' });
      } catch (err) {
        if (!isAppError(err)) throw err;
        const reason = typeof err.meta.reason === 'string' ? err.meta.reason : err.code;
        return htmlPage(errorPage('Sign-in could not be completed', `${err.message} (${reason})`), err.status, {
          'cache-control': 'no-store',
        });
      }
    },
  }),
  /**
   * The answer posted back from the provider's site (response_mode form_post, Sign in with Apple): a cross-site POST
   * carries none of the browser's SameSite=Lax cookies, so it is sent on to the GET callback (303, a top-level GET that
   * does carry them), which checks the flow as for any provider. Nothing is read or changed here.
   */
  postedBack: endpoint<FapiAuth, z.output<typeof callbackForm>>({
    summary: 'Social sign-in callback, posted back (response_mode form_post: Sign in with Apple): 303 to the GET callback',
    body: callbackForm,
    form: true,
    response: z.unknown(),
    audit: { unaudited: 'changes nothing: a redirect to the GET callback, where the flow completes and is recorded' },
    handle: async ({ auth, body }) => {
      const { user: _user, ...query } = body;
      const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined) as [string, string][]);
      return redirect(`${auth.servedUrl}/v1/oauth_callback?${params}`, 303, {
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
    },
  }),
};

/**
 * The mock provider's authorize page (server/social/mock.ts), served on test instances only:
 * the page with its form, and the form's answer, which goes on to the GET callback.
 */
export const mockOAuth = {
  page: endpoint<FapiAuth, never, { state?: string }>({
    summary: 'The mock provider’s authorize page (test instances only; 403 mock_provider_test_only on production)',
    query: z.object({ state: z.string().max(512).optional() }),
    response: z.unknown(),
    handle: async ({ deps, auth, query }) => {
      const page = await mockAuthorizePage(deps, auth.instance, query.state);
      return htmlPage(page.html, page.status, page.headers);
    },
  }),
  consent: endpoint<FapiAuth, z.output<typeof mockConsentBody>>({
    summary: 'The mock provider’s answer (its form): 303 to {fapi_url}/v1/oauth_callback with a one-time code, or error=access_denied',
    body: mockConsentBody,
    form: true,
    response: z.unknown(),
    audit: { unaudited: 'the stand-in provider’s own step: the sign-in is recorded (or its failure) at the callback' },
    handle: async ({ deps, auth, body }) => {
      const answer = await mockConsent(deps, auth.instance, body);
      if (answer.kind === 'redirect') return redirect(answer.url, 303, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      return htmlPage(answer.html, answer.status, answer.headers);
    },
  }),
};
