import { z } from 'zod';
import { auditContextOf } from '../../http/actor';
import { endpoint, htmlPage, redirect } from '../../http/endpoint';
import { isAppError } from '../../http/errors';
import { errorPage } from '../../http/protocol';
import type { FapiAuth } from './authenticate';
import { completeSocialFlow } from '../../social/flow';
import type { Deps } from '../../deps';
import { clientView } from '../../sessions/clients';
import { FLOW_TTL_MS, startSocialFlow } from '../../social/flow';
import { bindingFor, setFlowCookie } from '../../auth/flow-binding';

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

/**
 * The provider's redirect back. Success: 303 to the flow's redirect_url with the client's
 * session active (or pending on a second factor: the sign-in attempt id the flow announced
 * then answers GET /v1/client/sign_ins/:id as needs_second_factor). Failure: an HTML page
 * naming the reason; every outcome is in the audit log.
 */
export const oauthCallbackEndpoint = endpoint<FapiAuth, never, z.output<typeof callbackQuery>>({
  summary: 'Social sign-in callback: the provider redirects here (register {fapi_url}/v1/oauth_callback at the provider)',
  audit: { action: 'social.sign_in', recordedBy: 'domain' },
  query: callbackQuery,
  response: z.unknown(),
  handle: async ({ deps, auth, query, actor, request, raw }) => {
    const rawQuery = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined) as [string, string][]).toString();
    try {
      const browser = { client: auth.client, cookieHeader: raw.header('cookie') };
      const done = await completeSocialFlow(deps, auth.instance, browser, query, rawQuery, { ...auditContextOf(actor), ip: request.ip, userAgent: request.userAgent });
      if (done.kind === 'awaiting_claim') return redirect(done.redirectUrl, 303, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
      const token = done.step.clientToken ?? auth.clientToken;
      if (token) auth.issueClientToken(token);
      return redirect(done.redirectUrl, 303, { 'cache-control': 'no-store' });
    } catch (err) {
      if (!isAppError(err)) throw err;
      const reason = typeof err.meta.reason === 'string' ? err.meta.reason : err.code;
      return htmlPage(errorPage('Sign-in could not be completed', `${err.message} (${reason})`), err.status, { 'cache-control': 'no-store' });
    }
  },
});

/**
 * FAPI side of social sign-in: `strategy: "oauth_<name>"` on sign-in or sign-up creation
 * answers the provider's authorization URL (`first_factor_verification.
 * external_verification_redirect_url`); the provider sends the browser back to
 * `{fapi_url}/v1/oauth_callback`, which signs in and redirects to the `redirect_url`.
 */
async function start(deps: Deps, auth: FapiAuth, strategy: string, redirectUrl: string, purpose: 'sign_in' | 'sign_up', codeChallenge: string | undefined) {
  const binding = bindingFor(auth.mode, codeChallenge);
  const started = await startSocialFlow(deps, auth.instance, auth.client, { strategy, redirect_url: redirectUrl, purpose, binding });
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

export async function startSocialSignIn(deps: Deps, auth: FapiAuth, strategy: string, redirectUrl: string, codeChallenge?: string) {
  const { started, verification, client } = await start(deps, auth, strategy, redirectUrl, 'sign_in', codeChallenge);
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

export async function startSocialSignUp(deps: Deps, auth: FapiAuth, strategy: string, redirectUrl: string, codeChallenge?: string) {
  const { started, verification, client } = await start(deps, auth, strategy, redirectUrl, 'sign_up', codeChallenge);
  const f = started.flow;
  return {
    response: {
      object: 'sign_up_attempt' as const,
      id: f.signInId,
      status: 'missing_requirements' as const,
      required_fields: [],
      optional_fields: [],
      missing_fields: [],
      unverified_fields: ['external_account'],
      verifications: { email_address: null, external_account: verification },
      email_address: null,
      username: null,
      first_name: null,
      last_name: null,
      password_enabled: false,
      unsafe_metadata: {},
      created_user_id: null,
      created_session_id: null,
      abandon_at: f.createdAt + FLOW_TTL_MS,
      created_at: f.createdAt,
      updated_at: f.createdAt,
    },
    client,
  };
}
