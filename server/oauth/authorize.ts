import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { oauthCodes, oauthGrants, sessions, type OAuthAuthorizationContext } from '../db/schema';
import { newId } from '../db/ids';
import { constantTimeEqual, generateSecret, sha256Hex } from '../crypto/secrets';
import type { Actor } from '../http/actor';
import { htmlPage, redirect, type RequestInfo } from '../http/endpoint';
import { oauthDescription } from '../http/protocol';
import { isAppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { LOCALE_COOKIE } from '../../i18n/locales';
import { resolveMe } from '../users/me';
import { getUser } from '../users/users';
import { findApplication, type ApplicationRow } from './applications';
import type { OAuthErrorCode } from './errors';
import { consentPage, formPostPage, pageLocale, providerErrorPage, type PageLocale } from './pages';
import type { OidcAuth } from './oidc-caller';
import { parseScope } from './scopes';
import { authenticationOf } from './authentication';
import { ClaimsRequestError, parseClaimsRequest } from './claims-request';
import { mergeRequestObject, RequestObjectError } from './request-object';
import { verifyIdTokenHint } from './tokens';

type D = Pick<Deps, 'db' | 'clock' | 'caches' | 'cacheInvalidation' | 'cipher' | 'config' | 'dns' | 'testTrustedCas' | 'logger'>;

/** Codes live a minute (RFC 6749 §4.1.2 recommends at most ten). */
const OAUTH_CODE_TTL_MS = 60_000;
const CODE_PREFIX = 'oac_';
const PROMPTS = new Set(['none', 'login', 'consent', 'select_account']);
const CHALLENGE_RE = /^[A-Za-z0-9._~-]{43,128}$/;
/** The request parameters carried from the authorize request to sign-in and consent, and back. */
const CARRIED = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'state',
  'nonce',
  'code_challenge',
  'code_challenge_method',
  'prompt',
  'max_age',
  'ui_locales',
  'claims_locales',
  'login_hint',
  'id_token_hint',
  'acr_values',
  'claims',
  'display',
  'response_mode',
  'auth_after',
] as const;
const RESPONSE_MODES = new Set(['query', 'form_post']);
type Carried = (typeof CARRIED)[number];

/** Query or form parameters as sent; any repetition is refused later (RFC 6749 §3.1). */
export const authorizeParams = z.record(z.string(), z.union([z.string().max(4096), z.array(z.string().max(4096))]));
export type AuthorizeParams = z.output<typeof authorizeParams>;

interface ValidRequest {
  app: ApplicationRow;
  redirectUri: string;
  state: string | null;
  scopes: string[];
  nonce: string | null;
  codeChallenge: string | null;
  prompts: Set<string>;
  maxAge: number | null;
  /** `auth_after` as sent: the browser was sent to sign in again (see reauthentication below). */
  authAfter: Reauthentication;
  claims: OAuthAuthorizationContext['claims'];
  params: Partial<Record<Carried, string>>;
}

/** An error the RP hears about at its redirect_uri (RFC 6749 §4.1.2.1, with `iss` per RFC 9207). */
class RedirectError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}
/** An error shown to the user and never sent to the redirect_uri (unknown client, unregistered redirect_uri). */
class PageError extends Error {}

function single(params: AuthorizeParams, name: string): string | undefined {
  const v = params[name];
  if (Array.isArray(v)) throw new RedirectError('invalid_request', `${name} is repeated.`);
  return v === '' ? undefined : v;
}

/**
 * Client and redirect_uri first: until both check out, nothing may be sent to the redirect_uri.
 * A request object (Core §6.1) is read once the client is known (its keys verify it); its
 * redirect_uri supersedes the query's. One that does not check out answers
 * invalid_request_object at the query's redirect_uri when that one is registered.
 */
async function identifyClient(deps: D, instance: InstanceContext, sent: AuthorizeParams) {
  const clientId = sent.client_id;
  if (typeof clientId !== 'string') throw new PageError('client_id is missing or repeated.');
  const app = await findApplication(deps, instance.id, clientId);
  if (!app) throw new PageError('The client_id is not an application of this instance.');
  let params = sent;
  if (sent.request_uri !== undefined) {
    throw new EarlyRedirectError(
      redirectUriOf(app, sent, true),
      'request_uri_not_supported',
      'request_uri is not supported; send the request object by value (request).',
    );
  }
  if (sent.request !== undefined) {
    try {
      params = await mergeRequestObject(deps, instance, app, sent);
    } catch (e) {
      if (e instanceof RequestObjectError)
        throw new EarlyRedirectError(redirectUriOf(app, sent, true), 'invalid_request_object', e.message);
      throw e;
    }
  }
  return { app, params, redirectUri: redirectUriOf(app, params) };
}

/**
 * The redirect_uri in force. OIDC Core §3.1.2.1 requires it in an OpenID request; plain OAuth 2.0
 * may omit it when one is registered (RFC 6749 §3.1.2.3), as may an error about the request
 * object answered before its own redirect_uri could be read (`forError`).
 */
function redirectUriOf(app: ApplicationRow, params: AuthorizeParams, forError = false) {
  const given = params.redirect_uri;
  if (Array.isArray(given)) throw new PageError('redirect_uri is repeated.');
  const openid = typeof params.scope === 'string' && params.scope.split(' ').includes('openid');
  const redirectUri = given ?? (app.redirectUris.length === 1 && (forError || !openid) ? app.redirectUris[0]! : undefined);
  if (redirectUri === undefined) throw new PageError('redirect_uri is required.');
  if (!app.redirectUris.includes(redirectUri)) throw new PageError('The redirect_uri is not registered for this application.');
  return redirectUri;
}

/** An error about the request object, known before the request is validated: sent to the (registered) redirect_uri. */
class EarlyRedirectError extends Error {
  constructor(
    readonly redirectUri: string,
    readonly error: OAuthErrorCode,
    readonly description: string,
  ) {
    super(description);
  }
}

/**
 * `auth_after`: when a signed-in browser must sign in again (prompt=login, max_age), the
 * provider sends it to the hosted sign-in with the moment it did so, and only a sign-in after
 * that moment satisfies the request when the browser comes back (prompt=login is dropped on
 * the way, or it would never be satisfied). The value is the provider's own: signed, and bound
 * to this very request (client, redirect_uri, scope, state, nonce, PKCE challenge…), so a
 * relying party (or anyone editing the URL) cannot send one that waives the new sign-in.
 *
 * - `absent`: none was sent.
 * - `verified`: ours, for this request: the browser was sent to sign in after `at`.
 * - `forged`: sent, but not ours (or not for this request): the request asked for a new
 *   sign-in, so one is required, as for prompt=login.
 */
type Reauthentication = { kind: 'absent' } | { kind: 'verified'; at: number } | { kind: 'forged' };
const AUTH_AFTER_PURPOSE = 'oidc-auth-after';

/** What an `auth_after` is bound to: every carried parameter but the prompt and itself, and the redirect_uri in force. */
function requestBinding(app: ApplicationRow, redirectUri: string, carried: Partial<Record<Carried, string>>) {
  const bound = Object.entries(carried).filter(([k]) => k !== 'prompt' && k !== 'auth_after' && k !== 'redirect_uri');
  bound.sort(([a], [b]) => (a < b ? -1 : 1));
  return JSON.stringify([app.id, redirectUri, bound]);
}

function signAuthAfter(deps: Pick<Deps, 'cipher'>, req: ValidRequest, at: number) {
  return `${at}.${deps.cipher.mac(AUTH_AFTER_PURPOSE, `${at}.${requestBinding(req.app, req.redirectUri, req.params)}`)}`;
}

function reauthentication(
  deps: Pick<Deps, 'cipher'>,
  app: ApplicationRow,
  redirectUri: string,
  carried: Partial<Record<Carried, string>>,
): Reauthentication {
  const sent = carried.auth_after;
  if (sent === undefined) return { kind: 'absent' };
  const match = /^(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(sent);
  if (!match) return { kind: 'forged' };
  const at = Number(match[1]);
  const expected = deps.cipher.mac(AUTH_AFTER_PURPOSE, `${at}.${requestBinding(app, redirectUri, carried)}`);
  return Number.isSafeInteger(at) && constantTimeEqual(expected, match[2]!) ? { kind: 'verified', at } : { kind: 'forged' };
}

function validate(deps: Pick<Deps, 'cipher'>, app: ApplicationRow, redirectUri: string, params: AuthorizeParams): ValidRequest {
  const carried: Partial<Record<Carried, string>> = {};
  for (const name of CARRIED) {
    const v = single(params, name);
    if (v !== undefined) carried[name] = v;
  }
  if (carried.response_type !== 'code') {
    throw new RedirectError(carried.response_type ? 'unsupported_response_type' : 'invalid_request', 'response_type must be code.');
  }
  const scopes = parseScope(carried.scope);
  if (scopes.length === 0) throw new RedirectError('invalid_scope', 'scope is required.');
  const refused = scopes.find((s) => !app.scopes.includes(s));
  if (refused !== undefined) throw new RedirectError('invalid_scope', `The application may not ask for ${refused}.`);
  const method = carried.code_challenge_method;
  const challenge = carried.code_challenge ?? null;
  if (challenge !== null || method !== undefined) {
    if (method !== 'S256') throw new RedirectError('invalid_request', 'code_challenge_method must be S256 (plain is not supported).');
    if (challenge === null || !CHALLENGE_RE.test(challenge)) throw new RedirectError('invalid_request', 'code_challenge is malformed.');
  }
  if (app.public && challenge === null)
    throw new RedirectError('invalid_request', 'A public client must use PKCE (code_challenge with S256).');
  const prompts = new Set(parseScope(carried.prompt));
  if ([...prompts].some((p) => !PROMPTS.has(p)) || (prompts.has('none') && prompts.size > 1)) {
    throw new RedirectError('invalid_request', 'prompt is none, or any of login, consent, select_account.');
  }
  const maxAge = carried.max_age === undefined ? null : Number(carried.max_age);
  if (maxAge !== null && (!Number.isSafeInteger(maxAge) || maxAge < 0))
    throw new RedirectError('invalid_request', 'max_age is a number of seconds.');
  if (carried.response_mode !== undefined && !RESPONSE_MODES.has(carried.response_mode))
    throw new RedirectError('invalid_request', 'response_mode is query or form_post.');
  let claims: OAuthAuthorizationContext['claims'];
  try {
    claims = parseClaimsRequest(carried.claims);
  } catch (e) {
    if (e instanceof ClaimsRequestError) throw new RedirectError('invalid_request', e.message);
    throw e;
  }
  return {
    claims,
    app,
    redirectUri,
    state: carried.state ?? null,
    scopes,
    nonce: carried.nonce ?? null,
    codeChallenge: challenge,
    prompts,
    maxAge,
    authAfter: reauthentication(deps, app, redirectUri, carried),
    params: carried,
  };
}

/**
 * The answer at the redirect_uri, with `iss` (RFC 9207): in its query, or posted by the
 * browser (response_mode=form_post, OAuth 2.0 Form Post Response Mode).
 */
function respond(
  l: PageLocale,
  instance: InstanceContext,
  to: { redirectUri: string; formPost: boolean; status: 302 | 303 },
  values: Record<string, string | null>,
) {
  const answer: Record<string, string> = {};
  for (const [k, v] of Object.entries(values)) if (v !== null) answer[k] = k === 'error_description' ? oauthDescription(v) : v;
  answer.iss = instance.fapiUrl;
  if (to.formPost) {
    const page = formPostPage(l, to.redirectUri, answer);
    return htmlPage(page.html, 200, page.headers);
  }
  const url = new URL(to.redirectUri);
  for (const [k, v] of Object.entries(answer)) url.searchParams.set(k, v);
  return redirect(url.toString(), to.status);
}

/** The browser's signed-in user: its active session (not pending), with when it signed in. */
export async function signedIn(deps: D, auth: OidcAuth) {
  if (!auth.client) return null;
  const me = await resolveMe(deps, { instance: auth.instance, client: auth.client, bearer: null }, {}).catch((e: unknown) => {
    if (isAppError(e)) return null;
    throw e;
  });
  if (!me?.sessionId) return null;
  const [row] = await deps.db
    .select({ createdAt: sessions.createdAt, signInWay: sessions.signInWay, secondFactorVerifiedAt: sessions.secondFactorVerifiedAt })
    .from(sessions)
    .where(eq(sessions.id, me.sessionId));
  return row
    ? { userId: me.userId, sessionId: me.sessionId, authTime: row.createdAt, impersonatedBy: me.actor, ...authenticationOf(row) }
    : null;
}

/** The hosted sign-in, coming back to this authorize request (with a signed `auth_after` when a fresh sign-in is needed). */
function toSignIn(deps: Pick<Deps, 'cipher'>, instance: InstanceContext, req: ValidRequest, authAfter: number | null) {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(req.params)) if (k !== 'prompt' && k !== 'auth_after') params.set(k, v);
  const prompts = [...req.prompts].filter((p) => p !== 'login');
  if (prompts.length) params.set('prompt', prompts.join(' '));
  if (authAfter !== null) params.set('auth_after', signAuthAfter(deps, req, authAfter));
  const back = `${instance.fapiUrl}/oauth2/authorize?${params.toString()}`;
  const signIn = new URL(`${instance.fapiUrl}/sign-in`);
  signIn.searchParams.set('redirect_url', back);
  const locale = req.params.ui_locales?.split(' ')[0];
  if (locale) signIn.searchParams.set('locale', locale);
  // A fresh sign-in is due: the hosted page asks for it, never offering to continue with the session the browser has.
  if (authAfter !== null) signIn.searchParams.set('prompt', 'login');
  return signIn.toString();
}

async function grantedScopes(deps: D, appId: string, userId: string): Promise<string[]> {
  const [row] = await deps.db
    .select({ scopes: oauthGrants.scopes })
    .from(oauthGrants)
    .where(and(eq(oauthGrants.applicationId, appId), eq(oauthGrants.userId, userId)));
  return row?.scopes ?? [];
}

/** Remembers the user's consent (the union with what they granted before) and audits it. */
export async function recordConsent(
  deps: D,
  instance: InstanceContext,
  req: { app: ApplicationRow; scopes: string[] },
  userId: string,
  actor: Actor,
) {
  const now = deps.clock.now();
  await deps.db.transaction(async (tx) => {
    const before = await grantedScopes({ ...deps, db: tx }, req.app.id, userId);
    const scopes = [...new Set([...before, ...req.scopes])];
    const [row] = await tx
      .insert(oauthGrants)
      .values({ id: newId('ogr'), instanceId: instance.id, applicationId: req.app.id, userId, scopes, createdAt: now, updatedAt: now })
      .onConflictDoUpdate({ target: [oauthGrants.applicationId, oauthGrants.userId], set: { scopes, updatedAt: now } })
      .returning();
    await audit(
      { db: tx, clock: deps.clock },
      {
        instanceId: instance.id,
        actor: actor.ref,
        actorKind: actor.kind,
        action: 'oauth_grant.created',
        target: row!.id,
        ip: actor.ip,
        userAgent: actor.userAgent,
        details: { application_id: req.app.id, user_id: userId, scopes: req.scopes },
      },
    );
  });
}

type SignedIn = NonNullable<Awaited<ReturnType<typeof signedIn>>>;

async function issueCode(deps: D, instance: InstanceContext, req: ValidRequest, user: SignedIn) {
  const code = generateSecret(CODE_PREFIX);
  await deps.db.insert(oauthCodes).values({
    digest: sha256Hex(code),
    instanceId: instance.id,
    applicationId: req.app.id,
    userId: user.userId,
    redirectUri: req.redirectUri,
    scope: req.scopes.join(' '),
    nonce: req.nonce,
    codeChallenge: req.codeChallenge,
    authTime: user.authTime,
    context: { acr: user.acr, amr: user.amr, sid: user.sessionId, claims: req.claims },
    expiresAt: deps.clock.now() + OAUTH_CODE_TTL_MS,
  });
  return code;
}

export async function displayName(deps: D, instanceId: string, userId: string) {
  const u = await getUser(deps, instanceId, userId);
  const email = u.email_addresses.find((e) => e.id === u.primary_email_address_id)?.email_address;
  return email ?? u.username ?? ([u.first_name, u.last_name].filter(Boolean).join(' ') || u.id);
}

export interface AuthorizeInput {
  auth: OidcAuth;
  params: AuthorizeParams;
  request: RequestInfo;
  actor: Actor;
  /** The consent form's answer (POST /oauth2/consent); absent on /oauth2/authorize. */
  decision?: 'allow' | 'deny';
}

/**
 * OIDC Core §3.1.2: validates the request, then either answers the redirect_uri (a code, or
 * an error with `state` and `iss`), sends the browser to sign in, or shows the consent page.
 */
export async function authorize(deps: D, input: AuthorizeInput) {
  const { auth, request } = input;
  const { instance } = auth;
  const status = input.decision === undefined ? 302 : 303;
  const locale = (userLocale: string | null = null) =>
    pageLocale({
      uiLocales: typeof input.params.ui_locales === 'string' ? input.params.ui_locales : null,
      cookie: auth.cookie(LOCALE_COOKIE) ?? null,
      userLocale,
      acceptLanguage: request.acceptLanguage,
      instanceDefault: instance.settings.default_locale ?? null,
    });
  const formPost = (params: AuthorizeParams) => params.response_mode === 'form_post';
  let client: Awaited<ReturnType<typeof identifyClient>>;
  try {
    client = await identifyClient(deps, instance, input.params);
  } catch (e) {
    if (e instanceof PageError)
      return htmlPage(providerErrorPage(locale(), e.message, request.requestId), 400, { 'cache-control': 'no-store' });
    if (e instanceof EarlyRedirectError) {
      const to = { redirectUri: e.redirectUri, formPost: formPost(input.params), status } as const;
      return respond(locale(), instance, to, { error: e.error, error_description: e.description, state: stateOf(input.params) });
    }
    throw e;
  }
  const { params } = client;
  const to = { redirectUri: client.redirectUri, formPost: formPost(params), status } as const;
  let req: ValidRequest | null = null;
  const fail = (error: OAuthErrorCode, description: string) =>
    respond(locale(), instance, to, { error, error_description: description, state: req?.state ?? stateOf(params) });
  try {
    req = validate(deps, client.app, client.redirectUri, params);
    const user = await signedIn(deps, auth);
    const now = deps.clock.now();
    if (input.decision === 'deny') return fail('access_denied', 'The user denied access.');
    const hint = req.params.id_token_hint ? await verifyIdTokenHint(deps, instance, req.params.id_token_hint) : null;
    if (req.params.id_token_hint && !hint) return fail('invalid_request', 'id_token_hint is not an ID token of this provider.');
    // The RP names who it expects (Core §3.1.2.1): another user signed in here must not answer for them.
    const otherUser = hint !== null && user !== null && hint.sub !== user.userId;
    if (!user || otherUser) {
      if (req.prompts.has('none')) return fail('login_required', otherUser ? 'Another user is signed in.' : 'The user is not signed in.');
      // Whatever sign-in happens next is a fresh one.
      return redirect(toSignIn(deps, instance, req, otherUser ? now : null), status);
    }
    // An operator acting as the user must not hand a third-party app tokens in the user's name.
    if (user.impersonatedBy) return fail('access_denied', 'An impersonation session cannot authorize applications.');
    const { authAfter } = req;
    const stale =
      req.prompts.has('login') || authAfter.kind !== 'absent' || (req.maxAge !== null && user.authTime < now - req.maxAge * 1000);
    if (stale && !(authAfter.kind === 'verified' && user.authTime >= authAfter.at)) {
      // Sent to sign in again already, and came back with the old session: the RP hears it.
      if (authAfter.kind === 'verified' || req.prompts.has('none')) return fail('login_required', 'A fresh sign-in is required.');
      return redirect(toSignIn(deps, instance, req, now), status);
    }
    if (req.app.consentScreenEnabled && input.decision !== 'allow') {
      const granted = await grantedScopes(deps, req.app.id, user.userId);
      if (req.prompts.has('consent') || req.scopes.some((s) => !granted.includes(s))) {
        if (req.prompts.has('none')) return fail('consent_required', 'The user has not consented to this application.');
        const u = await getUser(deps, instance.id, user.userId);
        return htmlPage(
          consentPage(locale(u.locale), {
            action: `${instance.fapiUrl}/oauth2/consent`,
            appName: req.app.name,
            user: await displayName(deps, instance.id, user.userId),
            scopes: req.scopes,
            params: { ...req.params, redirect_uri: req.redirectUri },
            ...registeredLinks(req.app.registrationMetadata),
          }),
          200,
          // Framing (clickjacking of the Allow button) is refused by the surface's security headers.
          { 'cache-control': 'no-store' },
        );
      }
    }
    if (input.decision === 'allow' && req.app.consentScreenEnabled) await recordConsent(deps, instance, req, user.userId, input.actor);
    const code = await issueCode(deps, instance, req, user);
    return respond(locale(), instance, to, { code, state: req.state });
  } catch (e) {
    if (e instanceof RedirectError) return fail(e.error, e.description);
    throw e;
  }
}

const stateOf = (params: AuthorizeParams) => (typeof params.state === 'string' ? params.state : null);

/** The policy and terms links a dynamically registered app gave (http(s) URLs, checked at registration). */
function registeredLinks(meta: Record<string, unknown> | null): { policyUri?: string; tosUri?: string } {
  const url = (v: unknown) => (typeof v === 'string' && /^https?:\/\//i.test(v) ? v : undefined);
  return { policyUri: url(meta?.policy_uri), tosUri: url(meta?.tos_uri) };
}
