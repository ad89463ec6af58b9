import { z } from 'zod';
import { environmentSchema, environmentView } from '../../auth/environment';
import { localeInput } from '../../instances/locales';
import { FAPI_BUDGETS, type FapiAuth } from './authenticate';
import { budgetRule } from '../../limits/policy';
import { endpoint, redirect, type RequestInfo } from '../../http/endpoint';
import { auditContextOf } from '../../http/actor';
import { metadataInput } from '../../http/metadata';
import { enforceLimit } from '../../limits/rate-limit';
import { newId } from '../../db/ids';
import { clientView, type ClientRow } from '../../sessions/clients';
import { clientSchema } from './sessions';
import { signInWithTicket } from '../../auth/ticket-sign-in';
import { startEnterpriseSignIn } from '../../sso/flow';
import { SSO_REQUEST_TTL_MS } from '../../sso/saml';
import { bindingFor, codeChallengeInput, codeVerifierInput, setFlowCookie } from '../../auth/flow-binding';
import { claimSignIn } from './claim';
import { afterLinkUrl, splitLinkToken } from '../../users/email-links';
import { redeemAddressLink } from '../../users/my-account';
import { username } from '../../users/schemas';
import { emailAddress, phoneNumber } from '../../email/addresses';
import type { Deps } from '../../deps';
import { assertionInput } from '../../passkeys/schemas';
import { assertionOptions } from '../../passkeys/sign-in';
import { relyingPartyOf } from '../../passkeys/relying-party';
import {
  assertPasskeyStep,
  attemptFirstFactor,
  attemptSecondFactor,
  createPasskeySignIn,
  createSignIn,
  loadSignIn,
  prepareFirstFactor,
  prepareSecondFactor,
  redeemSignInLink,
  resetPassword,
  signInView,
  type SignInStep,
} from '../../auth/sign-ins';
import {
  attemptSignUpVerification,
  createSignUp,
  loadSignUp,
  prepareSignUpVerification,
  redeemSignUpLink,
  signUpView,
  type SignUpStrategy,
} from '../../auth/sign-ups';
import { OAUTH_STRATEGY_RE } from '../../social/schemas';
import { startSocialSignIn, startSocialSignUp, transferSignUp } from './social';

/**
 * FAPI endpoints of end-user authentication: sign-ups and sign-ins with their factors
 * (Clerk's shapes). Every answer is `{response: <attempt>, client: <client>}`; creating an
 * attempt creates the client when the caller has none and hands its token over (cookie
 * or Authorization header), and so does every step that signs in.
 */

/** Passwords are checked by the policy (8–256, see password-policy.ts); this only bounds the input. */
const passwordInput = z.string().max(4096);
const codeInput = z.string().trim().min(1).max(64);
const name = z.string().trim().max(256);

const strategyError = (supported: string[]) => (iss: { code?: string; input?: unknown }) =>
  iss.input === undefined
    ? `required; supported strategies: ${supported.join(', ')}.`
    : `unsupported; supported strategies: ${supported.join(', ')}.`;

const strategyOf = <const T extends readonly [string, ...string[]]>(values: T) => z.enum(values, { error: strategyError([...values]) });

// ---------------------------------------------------------------------------------------
// Schemas

const verificationSchema = z
  .object({
    object: z.literal('verification'),
    status: z.enum(['unverified', 'verified', 'failed', 'expired', 'transferable']),
    strategy: z.string(),
    attempts: z.number().int(),
    expire_at: z.number().int().nullable(),
    /** oauth_<provider>, enterprise_sso: where to send the browser (the provider, the IdP). */
    external_verification_redirect_url: z.string().nullable().optional(),
    /** passkey (in the answer that prepared it): the WebAuthn request options as JSON, for startAuthentication({ optionsJSON: JSON.parse(nonce) }). */
    nonce: z.string().optional(),
  })
  .nullable();

const signInAttemptSchema = z
  .object({
    object: z.literal('sign_in_attempt'),
    id: z.string(),
    status: z.enum(['needs_first_factor', 'needs_second_factor', 'needs_new_password', 'complete', 'abandoned']),
    identifier: z.string().nullable(),
    supported_identifiers: z.array(z.string()),
    supported_first_factors: z.array(z.object({ strategy: z.string(), safe_identifier: z.string().nullable().optional() })),
    supported_second_factors: z.array(z.object({ strategy: z.string(), safe_identifier: z.string().optional() })).nullable(),
    /** Why risk-based MFA asked for a second factor (new_device, new_network, new_country); null when it did not. */
    step_up_reasons: z.array(z.string()).nullable(),
    first_factor_verification: verificationSchema,
    second_factor_verification: verificationSchema,
    created_session_id: z.string().nullable(),
    abandon_at: z.number().int().nullable(),
    created_at: z.number().int().nullable(),
    updated_at: z.number().int().nullable(),
  })
  .meta({ id: 'SignInAttempt' });

const signUpAttemptSchema = z
  .object({
    object: z.literal('sign_up_attempt'),
    id: z.string(),
    status: z.enum(['missing_requirements', 'complete', 'abandoned']),
    required_fields: z.array(z.string()),
    optional_fields: z.array(z.string()),
    missing_fields: z.array(z.string()),
    unverified_fields: z.array(z.string()),
    verifications: z.object({
      email_address: verificationSchema,
      phone_number: verificationSchema.optional(),
      external_account: verificationSchema.optional(),
    }),
    /** Null for a sign-up through a social provider (the provider tells the address), or by phone number. */
    email_address: z.string().nullable(),
    /** A phone sign-up's number; absent or null otherwise. */
    phone_number: z.string().nullable().optional(),
    username: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    password_enabled: z.boolean(),
    unsafe_metadata: z.record(z.string(), z.unknown()),
    created_user_id: z.string().nullable(),
    created_session_id: z.string().nullable(),
    abandon_at: z.number().int(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'SignUpAttempt' });

const signInResponse = z.object({ response: signInAttemptSchema, client: clientSchema });
const signUpResponse = z.object({ response: signUpAttemptSchema, client: clientSchema });

/** A strategy of the list, or `oauth_<provider>` (a social provider of the instance). */
const strategyOrOauth = (values: readonly string[]) =>
  z
    .string()
    .max(64)
    .superRefine((v, ctx) => {
      if (!values.includes(v) && !OAUTH_STRATEGY_RE.test(v)) {
        ctx.addIssue({
          code: 'custom',
          message: `unsupported; supported strategies: ${values.join(', ')}.`,
          params: { reason: 'invalid_value' },
        });
      }
    })
    .meta({ description: `${values.join(', ')} or oauth_<provider> (a social provider of the instance; then redirect_url is required).` });

const redirectUrl = z.string().max(2048).meta({
  description:
    'oauth_<provider>, enterprise_sso: where the browser lands once signed in at the provider or IdP (an allowed redirect URL of the instance); email_link: the app’s page the link lands on once opened, with __clerk_status (an allowed origin or redirect URL).',
});
const completeRedirectUrl = z.string().max(2048).meta({
  description:
    'oauth_<provider>, enterprise_sso (Clerk’s name): where the browser lands when the sign-in completed at once; redirect_url then serves only a sign-in with more to do (a second factor, a transfer). Relative to redirect_url; an allowed redirect URL.',
});
const isOauth = (strategy: string | undefined) => strategy !== undefined && OAUTH_STRATEGY_RE.test(strategy);

export const createSignInBody = z
  .strictObject({
    /** `saml`: Clerk's former name of `enterprise_sso`. */
    strategy: strategyOrOauth(['password', 'ticket', 'enterprise_sso', 'saml', 'passkey']).optional(),
    identifier: z.string().trim().min(1).max(320).optional(),
    password: passwordInput.optional(),
    ticket: z.string().min(1).max(512).optional(),
    redirect_url: redirectUrl.optional(),
    action_complete_redirect_url: completeRedirectUrl.optional(),
    new_user: z.enum(['create', 'transfer']).optional().meta({
      description:
        'oauth_<provider>: a provider account with no user here is signed up at once (`create`, the default) or leaves the sign-in `transferable` for this client’s sign-up with `transfer: true` (`transfer`, Clerk’s flow).',
    }),
    code_challenge: codeChallengeInput.optional(),
  })
  .superRefine((v, ctx) => {
    const need = (param: string) => ctx.addIssue({ code: 'custom', path: [param], message: 'is required', params: { reason: 'required' } });
    if (isOauth(v.strategy)) {
      if (v.redirect_url === undefined) need('redirect_url');
      return;
    }
    if (v.strategy === 'ticket') {
      if (v.ticket === undefined) need('ticket');
      return;
    }
    // A username-less passkey sign-in: the passkey names the user.
    if (v.strategy === 'passkey') return;
    if (v.identifier === undefined) need('identifier');
    if (v.strategy === 'password' && v.password === undefined) need('password');
  });

const prepareFirstFactorBody = z
  .strictObject({
    strategy: strategyOf(['email_code', 'email_link', 'phone_code', 'reset_password_email_code', 'passkey', 'enterprise_sso']),
    /** enterprise_sso: start (again) at the IdP of the attempt's identifier; email_link: the app's page the link lands on once opened (email-links.ts). */
    redirect_url: redirectUrl.optional(),
    action_complete_redirect_url: completeRedirectUrl.optional(),
    code_challenge: codeChallengeInput.optional(),
  })
  .superRefine((v, ctx) => {
    if (v.strategy === 'enterprise_sso' && v.redirect_url === undefined)
      ctx.addIssue({ code: 'custom', path: ['redirect_url'], message: 'is required', params: { reason: 'required' } });
  });
const attemptFirstFactorBody = z.discriminatedUnion(
  'strategy',
  [
    z.strictObject({ strategy: z.literal('password'), password: passwordInput }),
    z.strictObject({ strategy: z.literal('email_code'), code: codeInput }),
    z.strictObject({ strategy: z.literal('phone_code'), code: codeInput }),
    z.strictObject({ strategy: z.literal('reset_password_email_code'), code: codeInput }),
    z.strictObject({ strategy: z.literal('passkey'), public_key_credential: assertionInput }),
  ],
  {
    error: (iss) =>
      iss.code === 'invalid_union'
        ? strategyError(['password', 'email_code', 'phone_code', 'reset_password_email_code', 'passkey'])({
            input: (iss.input as { strategy?: unknown } | undefined)?.strategy,
          })
        : undefined,
  },
);
const prepareSecondFactorBody = z.strictObject({ strategy: strategyOf(['totp', 'backup_code', 'email_code', 'passkey']) });
const attemptSecondFactorBody = z.union([
  z.strictObject({ strategy: strategyOf(['totp', 'backup_code', 'email_code']), code: codeInput }),
  z.strictObject({ strategy: z.literal('passkey'), public_key_credential: assertionInput }),
]);
const resetPasswordBody = z.strictObject({ password: passwordInput });

export const createSignUpBody = z
  .strictObject({
    /** oauth_<provider>: sign up through a social provider (then redirect_url is required and no other field applies). */
    strategy: strategyOrOauth([]).optional(),
    redirect_url: redirectUrl.optional(),
    action_complete_redirect_url: completeRedirectUrl.optional(),
    /** Clerk's transfer: this client's social sign-in that found no user (`transferable`) becomes this sign-up; no other field applies. */
    transfer: z.boolean().optional(),
    code_challenge: codeChallengeInput.optional(),
    email_address: emailAddress.optional(),
    /** A phone sign-up (instead of email_address): verified by an SMS code (`phone_code`). */
    phone_number: phoneNumber.optional(),
    password: passwordInput.optional(),
    username: username.optional(),
    first_name: name.optional(),
    last_name: name.optional(),
    unsafe_metadata: metadataInput.optional(),
    /** The user's language (emails, SMS, hosted pages); else the request's Accept-Language. */
    locale: localeInput.optional(),
    /**
     * The sign-up ticket of a waitlist invitation (the link's `ticket`, required in waitlist mode), or
     * an organization invitation's `invitation_token` (`oit_…`): then the invited address is
     * verified by the link and the sign-up completes at once (no code).
     */
    ticket: z.string().min(1).max(512).optional(),
  })
  .superRefine((v, ctx) => {
    const need = (param: string) => ctx.addIssue({ code: 'custom', path: [param], message: 'is required', params: { reason: 'required' } });
    if (v.transfer) return;
    if (isOauth(v.strategy)) {
      if (v.redirect_url === undefined) need('redirect_url');
    } else if (v.email_address !== undefined && v.phone_number !== undefined) {
      ctx.addIssue({
        code: 'custom',
        path: ['phone_number'],
        message: 'sign up with an email address or a phone number, not both',
        params: { reason: 'invalid' },
      });
    } else if (v.email_address === undefined && v.phone_number === undefined) need('email_address');
  });
const prepareVerificationBody = z.strictObject({
  strategy: strategyOf(['email_code', 'email_link', 'phone_code']),
  /** email_link: the app's page the link lands on once opened (required then). */
  redirect_url: z.string().max(2048).optional().meta({
    description:
      'email_link: the app’s page the link lands on once opened, with __clerk_status (an allowed origin or redirect URL; required).',
  }),
});
const attemptVerificationBody = z.strictObject({ strategy: strategyOf(['email_code', 'phone_code']).optional(), code: codeInput });

// ---------------------------------------------------------------------------------------
// Helpers

const auditCtxOf = (auth: FapiAuth, request: RequestInfo, client: ClientRow | null = auth.client) => ({
  actor: client ? `client:${client.id}` : 'client:new',
  ip: request.ip,
  userAgent: request.userAgent,
});

/**
 * A step that signed in hands the client its rotated token (web: the cookie; native: the
 * header); one that only moved on renews the lifetime of the token it has.
 */
function renewClientToken(auth: FapiAuth, step: { client: ClientRow | null; clientToken?: string | null }) {
  if (step.clientToken) {
    auth.issueClientToken(step.clientToken);
    auth.clientToken = step.clientToken;
    auth.client = step.client;
  } else if (step.client && auth.clientToken) auth.issueClientToken(auth.clientToken);
}

/**
 * A password sent with the create call is an attempt too: it spends the per-IP attempt
 * budget as attempt_first_factor would, so guessing cannot go through create faster.
 */
async function spendAttemptBudget(deps: Deps, auth: FapiAuth, request: RequestInfo) {
  if (!request.ip) return;
  const rule = await budgetRule(deps, auth.instance, FAPI_BUDGETS.attempt);
  await enforceLimit(deps, 'fapi', rule, `${auth.instance.id}:${request.ip}`, {
    instanceId: auth.instance.id,
    actor: 'anonymous',
    request,
  });
}

/** A sign-in step on an attempt of this client: run it, renew the client token if it signed in, answer. */
/**
 * Sign-in and sign-up steps write no audit entry: every attempt is rate-limited and kept on
 * its sign-in or sign-up, and what they achieve is recorded as session.created / user.created
 * events (an impersonation by ticket is audited by the domain).
 */
const AUTH_FLOW = { unaudited: 'authentication flow: attempts are kept on the sign-in/sign-up; the outcome is a session.created event' };

function signInStepEndpoint<I>(
  summary: string,
  body: z.ZodType<I>,
  step: (
    deps: Deps,
    instance: FapiAuth['instance'],
    attempt: Awaited<ReturnType<typeof loadSignIn>>,
    input: I,
    audit: ReturnType<typeof auditCtxOf>,
    auth: FapiAuth,
  ) => Promise<SignInStep>,
) {
  return endpoint<FapiAuth, I, never, 'id'>({
    summary,
    audit: AUTH_FLOW,
    body,
    response: signInResponse,
    handle: async ({ deps, auth, params, body: input, request }) => {
      const attempt = await loadSignIn(deps, auth.instance, auth.client, params.id);
      const done = await step(deps, auth.instance, attempt, input, auditCtxOf(auth, request), auth);
      renewClientToken(auth, done);
      return signInAnswer(deps, auth, done);
    },
  });
}

/** A passkey's answer carries the request's relying party (server/passkeys/relying-party.ts). */
function withPasskeyRp<I extends { strategy: string }>(input: I, auth: FapiAuth) {
  type Passkey = { strategy: 'passkey'; credential: z.output<typeof assertionInput>; rp: ReturnType<typeof relyingPartyOf> };
  if (!('public_key_credential' in input)) return input as Exclude<I, { public_key_credential: unknown }>;
  return { strategy: 'passkey', credential: input.public_key_credential, rp: relyingPartyOf(auth.instance, auth.servedUrl) } as Passkey;
}

/** A sign-in answer whose first or second factor verification carries the passkey options just prepared. */
async function passkeyOptionsAnswer(
  deps: Deps,
  auth: FapiAuth,
  attempt: Awaited<ReturnType<typeof loadSignIn>>,
  factor: 'first' | 'second',
  client: ClientRow | null = null,
) {
  const { options, expiresAt } = await assertionOptions(
    deps,
    auth.instance,
    relyingPartyOf(auth.instance, auth.servedUrl),
    attempt,
    factor === 'first' ? 'sign_in' : 'second_factor',
  );
  const answer = await signInAnswer(deps, auth, { attempt, client });
  const verification = {
    object: 'verification' as const,
    status: 'unverified' as const,
    strategy: 'passkey',
    attempts: 0,
    expire_at: expiresAt,
    nonce: JSON.stringify(options),
  };
  return {
    ...answer,
    response: { ...answer.response, [factor === 'first' ? 'first_factor_verification' : 'second_factor_verification']: verification },
  };
}

/** An enterprise sign-in started at the IdP of the attempt's identifier: the answer names where to send the browser, and sets the flow cookie. */
async function startSsoAnswer(
  deps: Deps,
  auth: FapiAuth,
  at: { attempt: Awaited<ReturnType<typeof loadSignIn>>; client: ClientRow | null },
  input: { binding: ReturnType<typeof bindingFor>; redirectUrl: string | undefined; completeRedirectUrl: string | undefined },
) {
  const { url, requestId, crossSitePost } = await startEnterpriseSignIn(deps, auth.instance, {
    identifier: at.attempt.identifier,
    signInAttemptId: at.attempt.id,
    clientId: at.attempt.clientId,
    redirectUrl: input.redirectUrl,
    completeRedirectUrl: input.completeRedirectUrl,
    binding: input.binding,
  });
  setFlowCookie(auth, requestId, input.binding, SSO_REQUEST_TTL_MS, { crossSitePost });
  const answer = await signInAnswer(deps, auth, at);
  const verification = {
    object: 'verification' as const,
    status: 'unverified' as const,
    strategy: 'enterprise_sso',
    attempts: 0,
    expire_at: null,
  };
  return {
    ...answer,
    response: { ...answer.response, first_factor_verification: { ...verification, external_verification_redirect_url: url } },
  };
}

/** `newClient`: the client was made by this request, so its one live session is the step's (no read). */
async function signInAnswer(deps: Deps, auth: FapiAuth, step: SignInStep, opts: { newClient?: boolean } = {}) {
  const known = opts.newClient && step.session && step.client ? [step.session] : undefined;
  return {
    response: await signInView(deps, step.attempt, auth.instance.settings.sign_in_methods),
    client: await clientView(deps, auth.instance, step.client ?? auth.client, known),
  };
}

/** Whose link a token is, by the id it carries: a sign-up's, an address's (added to an account), else a sign-in's. */
const LINK_REDEEMERS = [
  { prefix: 'sua_', redeem: redeemSignUpLink },
  { prefix: 'idn_', redeem: redeemAddressLink },
  { prefix: '', redeem: redeemSignInLink },
] as const;

const claimBody = z.strictObject({ claim_nonce: z.string().min(1).max(256), code_verifier: codeVerifierInput });

/**
 * `GET {fapi_url}/v1/environment`: what a sign-in UI (the hosted pages, an SDK) needs to
 * draw itself before anyone signs in — public, no client, no secrets (never the allowlist).
 *
 * With `?redirect_url=`, it also says whether hosted pages may send the browser there
 * afterwards (isAllowedRedirect: the fapi_url's origin, or under an entry of the
 * instance's `redirect_urls`); a page must not redirect to a URL answered `allowed: false`.
 *
 * `localization` is the language of the hosted pages and the instance's enabled
 * overrides of their copy in it (dotted keys of `messages/<locale>/hosted.json` → text).
 * The language: `?locale=` when supported, else the signed-in user's locale (a client
 * with an active session), else Accept-Language, else the instance's `default_locale`,
 * else English — always one of the hosted catalogs (en, fr, de; `fr-CA` → `fr`).
 */

const environmentQuery = z.object({
  redirect_url: z.string().max(4096).optional(),
  publishable_key: z.string().max(512).optional(),
  _is_native: z.string().max(8).optional(),
  locale: z.string().max(64).optional(),
});

export const signIns = {
  // ---------------------------------------------------------------------------------------
  // Sign-in
  create: endpoint<FapiAuth, z.output<typeof createSignInBody>>({
    summary:
      'Start a sign-in: with an identifier (email address or username; optionally its password at once), or redeem a ticket (strategy ticket)',
    audit: AUTH_FLOW,
    body: createSignInBody,
    response: signInResponse,
    handle: async ({ deps, auth, body, request }) => {
      if (isOauth(body.strategy)) {
        return startSocialSignIn(
          deps,
          auth,
          body.strategy!,
          { redirectUrl: body.redirect_url!, completeRedirectUrl: body.action_complete_redirect_url, newUser: body.new_user },
          body.code_challenge,
        );
      }
      if (body.strategy === 'ticket') {
        const end = await signInWithTicket(deps, auth.instance, { ticket: body.ticket!, client: auth.client }, request);
        auth.issueClientToken(end.clientToken ?? auth.clientToken!);
        if (end.attempt) return signInAnswer(deps, auth, { attempt: end.attempt, client: end.client });
        const now = deps.clock.now();
        return {
          response: {
            object: 'sign_in_attempt' as const,
            id: newId('sia'),
            status: 'complete' as const,
            identifier: null,
            supported_identifiers: [],
            supported_first_factors: [],
            supported_second_factors: null,
            step_up_reasons: null,
            first_factor_verification: {
              object: 'verification' as const,
              status: 'verified' as const,
              strategy: 'ticket',
              attempts: 0,
              expire_at: null,
            },
            second_factor_verification: null,
            created_session_id: end.sessionId,
            abandon_at: null,
            created_at: now,
            updated_at: now,
          },
          client: await clientView(deps, auth.instance, end.client),
        };
      }
      if (body.strategy === 'passkey' && body.identifier === undefined) {
        const created = await createPasskeySignIn(deps, auth.instance, auth.client);
        const token = created.newClientToken ?? auth.clientToken!;
        auth.issueClientToken(token);
        auth.client = created.client;
        auth.clientToken = token;
        return passkeyOptionsAnswer(deps, auth, created.attempt, 'first', created.client);
      }
      if (body.password !== undefined) await spendAttemptBudget(deps, auth, request);
      const ssoBinding = body.strategy === 'enterprise_sso' || body.strategy === 'saml' ? bindingFor(auth.mode, body.code_challenge) : null;
      const created = await createSignIn(deps, auth.instance, body.identifier!, auth.client, { withPassword: body.password !== undefined });
      const token = created.newClientToken ?? auth.clientToken!;
      auth.issueClientToken(token);
      auth.client = created.client;
      auth.clientToken = token;
      if (ssoBinding)
        return startSsoAnswer(deps, auth, created, {
          binding: ssoBinding,
          redirectUrl: body.redirect_url,
          completeRedirectUrl: body.action_complete_redirect_url,
        });
      if (body.strategy === 'passkey') {
        await assertPasskeyStep(deps, auth.instance, created.attempt, 'first');
        return passkeyOptionsAnswer(deps, auth, created.attempt, 'first', created.client);
      }
      if (body.password !== undefined) {
        // attemptFirstFactor refuses a locked account before hashing.
        const step = await attemptFirstFactor(
          deps,
          auth.instance,
          created.attempt,
          { strategy: 'password', password: body.password, stored: created.stored },
          auditCtxOf(auth, request),
        );
        renewClientToken(auth, step);
        return signInAnswer(deps, auth, step, { newClient: created.newClientToken !== null });
      }
      // No lock check here: a lockout stops password guesses, never the codes that prove the mailbox.
      return signInAnswer(deps, auth, { attempt: created.attempt, client: created.client });
    },
  }),
  get: endpoint<FapiAuth, never, never, 'id'>({
    summary: 'This client’s sign-in attempt',
    response: signInResponse,
    handle: async ({ deps, auth, params }) => {
      const attempt = await loadSignIn(deps, auth.instance, auth.client, params.id);
      return signInAnswer(deps, auth, { attempt, client: null });
    },
  }),
  prepareFirstFactor: endpoint<FapiAuth, z.output<typeof prepareFirstFactorBody>, never, 'id'>({
    summary: 'Send the email code of email_code or reset_password_email_code (1 per 30 s and 5 per hour per address)',
    audit: AUTH_FLOW,
    body: prepareFirstFactorBody,
    response: signInResponse,
    handle: async ({ deps, auth, params, body, request }) => {
      const attempt = await loadSignIn(deps, auth.instance, auth.client, params.id);
      if (body.strategy === 'passkey') {
        await assertPasskeyStep(deps, auth.instance, attempt, 'first');
        return passkeyOptionsAnswer(deps, auth, attempt, 'first');
      }
      if (body.strategy === 'enterprise_sso') {
        const binding = bindingFor(auth.mode, body.code_challenge);
        return startSsoAnswer(
          deps,
          auth,
          { attempt, client: null },
          { binding, redirectUrl: body.redirect_url, completeRedirectUrl: body.action_complete_redirect_url },
        );
      }
      await prepareFirstFactor(deps, auth.instance, attempt, body.strategy, {
        acceptLanguage: request.acceptLanguage,
        ip: request.ip,
        userAgent: request.userAgent,
        redirectUrl: body.redirect_url,
      });
      return signInAnswer(deps, auth, { attempt, client: null });
    },
  }),
  attemptFirstFactor: signInStepEndpoint(
    'Attempt a first factor: password, email_code, phone_code, reset_password_email_code, or passkey (public_key_credential)',
    attemptFirstFactorBody,
    (deps, instance, attempt, input, audit, auth) => attemptFirstFactor(deps, instance, attempt, withPasskeyRp(input, auth), audit),
  ),
  claim: endpoint<FapiAuth, z.output<typeof claimBody>, never, 'id'>({
    summary:
      'Native apps: claim the oauth_<provider> or enterprise_sso sign-in this attempt started, with the claim_nonce the browser came back with (on redirect_url) and the code_verifier of the start’s code_challenge',
    audit: AUTH_FLOW,
    body: claimBody,
    response: signInResponse,
    handle: async ({ deps, auth, params, body, request }) => {
      const step = await claimSignIn(
        deps,
        auth.instance,
        auth.client,
        params.id,
        { claimNonce: body.claim_nonce, codeVerifier: body.code_verifier },
        auditCtxOf(auth, request),
      );
      renewClientToken(auth, step);
      return signInAnswer(deps, auth, step);
    },
  }),
  prepareSecondFactor: endpoint<FapiAuth, z.output<typeof prepareSecondFactorBody>, never, 'id'>({
    summary: 'Prepare a second factor: email_code (a risk-based step-up) sends the code; totp and backup_code need nothing sent',
    audit: AUTH_FLOW,
    body: prepareSecondFactorBody,
    response: signInResponse,
    handle: async ({ deps, auth, params, body, request }) => {
      const attempt = await loadSignIn(deps, auth.instance, auth.client, params.id);
      if (body.strategy === 'passkey') {
        await assertPasskeyStep(deps, auth.instance, attempt, 'second');
        return passkeyOptionsAnswer(deps, auth, attempt, 'second');
      }
      await prepareSecondFactor(deps, auth.instance, attempt, body.strategy, { acceptLanguage: request.acceptLanguage });
      return signInAnswer(deps, auth, { attempt, client: null });
    },
  }),
  attemptSecondFactor: signInStepEndpoint(
    'Attempt a second factor (totp, backup_code or email_code with code; passkey with public_key_credential); success activates the pending session',
    attemptSecondFactorBody,
    (deps, instance, attempt, input, audit, auth) => attemptSecondFactor(deps, instance, attempt, withPasskeyRp(input, auth), audit),
  ),
  resetPassword: signInStepEndpoint(
    'Set a new password after a verified reset code; revokes the user’s other sessions and signs in',
    resetPasswordBody,
    (deps, instance, attempt, input, audit) => resetPassword(deps, instance, attempt, input.password, audit),
  ),
};

export const verificationLinks = {
  /**
   * An emailed link lands here (`email_link`): the sign-in or sign-up of the browser that asked
   * completes (its tab, polling the attempt, moves on), or the address added to an account is
   * verified; whoever clicked is sent to the app's `redirect_url` with Clerk's `__clerk_status`
   * (`verified`, `expired`, `failed`, or `client_mismatch` when the instance wants the link opened
   * in the browser that asked and this is another), else to the hosted page that says so.
   */
  verify: endpoint<FapiAuth, never, { token: string; redirect_url?: string }>({
    summary:
      'An emailed link (email_link): completes the sign-in or sign-up of the browser that asked, or verifies the address it was sent to, then 303 to the app’s redirect_url (__clerk_status, __clerk_created_session) or {fapi_url}/sign-in/link-verified?status=…',
    audit: AUTH_FLOW,
    query: z.object({ token: z.string().max(256), redirect_url: z.string().max(2048).optional() }),
    response: z.unknown(),
    handle: async ({ deps, auth, query, actor, request }) => {
      const token = splitLinkToken(query.token);
      const ctx = { ...auditContextOf(actor), ip: request.ip, userAgent: request.userAgent };
      const clickedBy = auth.client?.id ?? null;
      const outcome = token
        ? await LINK_REDEEMERS.find((r) => token.id.startsWith(r.prefix))!.redeem(
            deps,
            auth.instance,
            token.id,
            token.secret,
            clickedBy,
            ctx,
          )
        : { status: 'failed' as const, clientToken: null, sessionId: null };
      if (outcome.clientToken) auth.issueClientToken(outcome.clientToken);
      return redirect(afterLinkUrl(auth.instance, outcome, query.redirect_url), 303, {
        'cache-control': 'no-store',
        'referrer-policy': 'no-referrer',
      });
    },
  }),
};

export const signUps = {
  // ---------------------------------------------------------------------------------------
  // Sign-up
  create: endpoint<FapiAuth, z.output<typeof createSignUpBody>>({
    summary: 'Start a sign-up (fields per the instance settings and sign-up mode); then prepare and attempt the email code',
    audit: AUTH_FLOW,
    body: createSignUpBody,
    response: signUpResponse,
    handle: async ({ deps, auth, body, request }) => {
      if (body.transfer) return transferSignUp(deps, auth, auditCtxOf(auth, request));
      if (isOauth(body.strategy))
        return startSocialSignUp(
          deps,
          auth,
          body.strategy!,
          { redirectUrl: body.redirect_url!, completeRedirectUrl: body.action_complete_redirect_url },
          body.code_challenge,
        );
      const created = await createSignUp(deps, auth.instance, body, auth.client, auditCtxOf(auth, request));
      auth.issueClientToken(created.newClientToken ?? auth.clientToken!);
      // A client made by this request holds no session unless the sign-up completed at once (an invitation's ticket).
      const known = created.newClientToken !== null && created.attempt.createdSessionId === null ? [] : undefined;
      return {
        response: await signUpView(deps, auth.instance, created.attempt, { created: true }),
        client: await clientView(deps, auth.instance, created.client, known),
      };
    },
  }),
  get: endpoint<FapiAuth, never, never, 'id'>({
    summary: 'This client’s sign-up attempt',
    response: signUpResponse,
    handle: async ({ deps, auth, params }) => {
      const attempt = await loadSignUp(deps, auth.instance, auth.client, params.id);
      return { response: await signUpView(deps, auth.instance, attempt), client: await clientView(deps, auth.instance, auth.client) };
    },
  }),
  prepareVerification: endpoint<FapiAuth, z.output<typeof prepareVerificationBody>, never, 'id'>({
    summary:
      'Email a 6-digit code to the sign-up’s address, or text it to its phone number (1 per 30 s and 5 per hour per address); email_link emails a link that completes the sign-up of this browser once opened',
    audit: AUTH_FLOW,
    body: prepareVerificationBody,
    response: signUpResponse,
    handle: async ({ deps, auth, params, body, request }) => {
      const attempt = await loadSignUp(deps, auth.instance, auth.client, params.id);
      await prepareSignUpVerification(deps, auth.instance, attempt, {
        acceptLanguage: request.acceptLanguage,
        strategy: body.strategy as SignUpStrategy,
        redirectUrl: body.redirect_url,
        ip: request.ip,
        userAgent: request.userAgent,
      });
      return { response: await signUpView(deps, auth.instance, attempt), client: await clientView(deps, auth.instance, auth.client) };
    },
  }),
  attemptVerification: endpoint<FapiAuth, z.output<typeof attemptVerificationBody>, never, 'id'>({
    summary: 'Check the email code; success creates the user and a session on the client',
    audit: AUTH_FLOW,
    body: attemptVerificationBody,
    response: signUpResponse,
    handle: async ({ deps, auth, params, body, request }) => {
      const attempt = await loadSignUp(deps, auth.instance, auth.client, params.id);
      const done = await attemptSignUpVerification(
        deps,
        auth.instance,
        attempt,
        body.code,
        auditCtxOf(auth, request),
        body.strategy as SignUpStrategy | undefined,
      );
      renewClientToken(auth, done);
      return { response: await signUpView(deps, auth.instance, done.attempt), client: await clientView(deps, auth.instance, done.client) };
    },
  }),
};

export const environment = {
  get: endpoint<FapiAuth, never, z.output<typeof environmentQuery>>({
    summary:
      'What a sign-in UI needs: the instance’s name and keys, sign-up mode and fields, factors, the hosted pages’ language and copy overrides; with redirect_url, whether it is allowed',
    query: environmentQuery,
    response: environmentSchema,
    handle: ({ deps, auth, query, request }) =>
      environmentView(deps, auth.instance, {
        redirectUrl: query.redirect_url,
        locale: query.locale,
        acceptLanguage: request.acceptLanguage,
        client: auth.client,
      }),
  }),
};
