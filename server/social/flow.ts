import { and, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import * as oidc from 'openid-client';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { emailAddresses, externalAccounts, OAUTH2_KINDS, signInAttempts, socialFlows, socialProviders } from '../db/schema';
import { newId } from '../db/ids';
import { sha256Hex } from '../crypto/secrets';
import type { AuditContext } from '../http/actor';
import { AppError, isAppError, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { isAllowedRedirect } from '../instances/settings';
import { createClient, type ClientRow } from '../sessions/clients';
import { completeFirstFactor, type SignInStep } from '../auth/sign-ins';
import { recordSignInAttempt } from '../auth/complete-sign-in';
import { completeRedirectUrl } from '../auth/complete-redirect';
import {
  bindingColumns,
  browserHoldsFlow,
  claimRefused,
  newFlowNonce,
  nonceMatches,
  verifierMatches,
  withClaimNonce,
  type FlowBinding,
} from '../auth/flow-binding';
import { checkSignUpMode } from '../auth/sign-ups';
import { createUser } from '../users/users';
import { providerConfig, providerFetch } from './client';
import { callbackUrl, checkMockAllowed, findEnabledProvider, type ProviderRow } from './providers';
import { mockAuthorizeUrl, mockIdentity } from './mock';
import { REASONS } from './reasons';
import { REASONS as INSTANCE_REASONS } from '../instances/reasons';
import { OAUTH_STRATEGY_RE } from './schemas';
import { strategyOf, transferableFlow } from '../auth/social-transfer';

/**
 * Social sign-in (`strategy: "oauth_<name>"`): authorization code flow with PKCE (S256),
 * state and — for OIDC providers — nonce, through openid-client. The flow is bound to whoever
 * started it (server/auth/flow-binding.ts): the browser by its flow cookie, a native app by
 * its code challenge; the callback on the fapi_url completes it once.
 *
 * Who signs in: the user already linked to the provider account; else the user whose
 * address equals the provider's email when both sides verified it (linking); else a new
 * user (just-in-time, sign-up mode permitting) when the provider verified the email.
 * An unverified email never links to, nor creates, an account.
 */
type D = Deps;
type FlowRow = typeof socialFlows.$inferSelect;
export const FLOW_TTL_MS = 10 * 60_000;

export interface Identity {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  firstName: string | null;
  lastName: string | null;
}

const refused = (reason: keyof typeof REASONS, message: string) =>
  new AppError('FORBIDDEN', { message, meta: { reason: REASONS[reason] } });

/** Starts a flow: the provider's authorization URL the browser goes to, and the sign-in attempt id it will complete. */
export async function startSocialFlow(
  deps: D,
  instance: InstanceContext,
  client: ClientRow | null,
  input: {
    strategy: string;
    redirect_url: string;
    /** Where to land once signed in completely (default redirect_url). */
    complete_redirect_url?: string;
    purpose: 'sign_in' | 'sign_up';
    new_user?: 'create' | 'transfer';
    binding: FlowBinding;
  },
) {
  const name = OAUTH_STRATEGY_RE.exec(input.strategy)?.[1];
  const provider = name ? await findEnabledProvider(deps, instance.id, name) : null;
  if (!provider)
    throw validationError('strategy', REASONS.unknown_provider, `${input.strategy} names no enabled social provider of this instance.`);
  if (!isAllowedRedirect(instance.settings, instance.fapiUrl, input.redirect_url)) {
    throw validationError(
      'redirect_url',
      INSTANCE_REASONS.redirect_url_not_allowed,
      'redirect_url is not one of the instance’s allowed redirect URLs.',
    );
  }
  const completeUrl = completeRedirectUrl(
    instance,
    input.redirect_url,
    input.complete_redirect_url,
    INSTANCE_REASONS.redirect_url_not_allowed,
  );
  const state = oidc.randomState();
  const nonce = oidc.randomNonce();
  const verifier = oidc.randomPKCECodeVerifier();
  let url: URL;
  if (provider.kind === 'mock') {
    // Latchkey's own authorize page (mock.ts), never on a production instance.
    checkMockAllowed(instance);
    url = mockAuthorizeUrl(instance, state);
  } else {
    const config = await providerConfig(deps, instance, provider).catch((err: unknown) => {
      throw new AppError('SERVICE_UNAVAILABLE', {
        message: 'The social provider could not be reached.',
        cause: err,
        meta: { reason: REASONS.provider_error },
      });
    });
    const isOidc = !OAUTH2_KINDS.includes(provider.kind);
    url = oidc.buildAuthorizationUrl(config, {
      response_type: 'code',
      // Apple posts its answer back when the email or name is asked for.
      ...(provider.kind === 'apple' ? { response_mode: 'form_post' } : {}),
      redirect_uri: callbackUrl(instance),
      scope: provider.scopes.join(' '),
      state,
      ...(isOidc ? { nonce } : {}),
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
    });
  }
  return deps.db.transaction(async (tx) => {
    let c = client;
    let newClientToken: string | null = null;
    if (!c) ({ client: c, token: newClientToken } = await createClient({ db: tx, clock: deps.clock }, instance.id));
    const now = deps.clock.now();
    const [flow] = await tx
      .insert(socialFlows)
      .values({
        id: newId('socf'),
        instanceId: instance.id,
        clientId: c.id,
        providerId: provider.id,
        signInId: newId('sia'),
        purpose: input.purpose,
        stateDigest: sha256Hex(state),
        nonce,
        codeVerifierEncrypted: deps.cipher.encrypt(verifier),
        redirectUrl: input.redirect_url,
        completeRedirectUrl: completeUrl,
        newUser: input.new_user ?? 'create',
        ...bindingColumns(input.binding),
        expiresAt: now + FLOW_TTL_MS,
        createdAt: now,
      })
      .returning();
    return { flow: flow!, provider, url: url.href, client: c, newClientToken };
  });
}

/** GitHub is OAuth 2.0, not OIDC: the user and their verified addresses come from its API. */
async function githubIdentity(deps: D, instance: InstanceContext, p: ProviderRow, accessToken: string): Promise<Identity> {
  const fetchFn = providerFetch(deps, instance);
  const base = p.endpoints.api_base_url!.replace(/\/+$/, '');
  const headers = { authorization: `Bearer ${accessToken}`, accept: 'application/vnd.github+json', 'user-agent': 'Latchkey' };
  const get = async (path: string) => {
    const res = await fetchFn(`${base}${path}`, { method: 'GET', headers });
    if (res.status !== 200) throw refused('provider_error', `GitHub answered ${res.status} to ${path}.`);
    return res.json() as Promise<unknown>;
  };
  const user = (await get('/user')) as { id?: unknown; name?: unknown };
  if (typeof user.id !== 'number' && typeof user.id !== 'string') throw refused('provider_error', 'GitHub did not name the user.');
  const emails = (await get('/user/emails')) as { email?: unknown; primary?: unknown; verified?: unknown }[];
  const list = Array.isArray(emails) ? emails.filter((e) => typeof e.email === 'string') : [];
  const chosen =
    list.find((e) => e.primary === true && e.verified === true) ??
    list.find((e) => e.verified === true) ??
    list.find((e) => e.primary === true);
  const [first, ...rest] = typeof user.name === 'string' ? user.name.trim().split(/\s+/) : [];
  return {
    subject: String(user.id),
    email: (chosen?.email as string | undefined) ?? null,
    emailVerified: chosen?.verified === true,
    firstName: first || null,
    lastName: rest.join(' ') || null,
  };
}

/**
 * Facebook and Discord (OAuth 2.0): the person from their API. Discord says whether the address is verified; Facebook
 * answers only a confirmed address (its `email` field is absent otherwise), so it counts as verified.
 */
async function oauth2Identity(deps: D, instance: InstanceContext, p: ProviderRow, accessToken: string): Promise<Identity> {
  const fetchFn = providerFetch(deps, instance);
  const base = p.endpoints.api_base_url!.replace(/\/+$/, '');
  const path = p.kind === 'discord' ? '/users/@me' : '/me?fields=id,email,first_name,last_name';
  const res = await fetchFn(`${base}${path}`, {
    method: 'GET',
    headers: { authorization: `Bearer ${accessToken}`, accept: 'application/json', 'user-agent': 'Latchkey' },
  });
  if (res.status !== 200) throw refused('provider_error', `${p.displayName} answered ${res.status} to ${path.split('?')[0]}.`);
  const me = (await res.json()) as Record<string, unknown>;
  if (typeof me.id !== 'string' && typeof me.id !== 'number') throw refused('provider_error', `${p.displayName} did not name the user.`);
  if (p.kind === 'discord') {
    const [first, ...rest] = typeof me.global_name === 'string' ? me.global_name.trim().split(/\s+/) : [];
    return {
      subject: String(me.id),
      email: str(me.email),
      emailVerified: me.verified === true,
      firstName: first || str(me.username),
      lastName: rest.join(' ') || null,
    };
  }
  return {
    subject: String(me.id),
    email: str(me.email),
    emailVerified: typeof me.email === 'string',
    firstName: str(me.first_name),
    lastName: str(me.last_name),
  };
}

const str = (v: unknown) => (typeof v === 'string' && v.length > 0 ? v.slice(0, 256) : null);

async function exchange(
  deps: D,
  instance: InstanceContext,
  p: ProviderRow,
  flow: FlowRow,
  state: string,
  query: string,
): Promise<Identity> {
  if (p.kind === 'mock') {
    checkMockAllowed(instance);
    return mockIdentity(deps, flow, new URLSearchParams(query).get('code'));
  }
  const config = await providerConfig(deps, instance, p);
  const isOidc = !OAUTH2_KINDS.includes(p.kind);
  let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
  try {
    tokens = await oidc.authorizationCodeGrant(config, new URL(`${callbackUrl(instance)}?${query}`), {
      pkceCodeVerifier: deps.cipher.decrypt(flow.codeVerifierEncrypted),
      expectedState: state,
      ...(isOidc ? { expectedNonce: flow.nonce, idTokenExpected: true } : {}),
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    // openid-client names the failing claim (nonce, iss, aud…) down its chain of causes.
    let claim: unknown;
    for (
      let e = err as { cause?: unknown; claim?: unknown } | undefined, n = 0;
      e && n < 5 && claim === undefined;
      e = e.cause as typeof e, n++
    )
      claim = e.claim;
    const which = typeof claim === 'string' ? ` (${claim.slice(0, 32)})` : '';
    throw refused('token_invalid', `The provider’s answer could not be verified: ${message.slice(0, 200)}${which}`);
  }
  if (p.kind === 'github') return githubIdentity(deps, instance, p, tokens.access_token);
  if (!isOidc) return oauth2Identity(deps, instance, p, tokens.access_token);
  const claims = tokens.claims()!;
  let info: Record<string, unknown> = claims;
  if (typeof claims.email !== 'string' && tokens.access_token) {
    info = { ...claims, ...(await oidc.fetchUserInfo(config, tokens.access_token, claims.sub).catch(() => ({}))) };
  }
  return {
    subject: claims.sub,
    email: str(info.email),
    // Entra ID sends no email_verified; its optional claim xms_edov says the domain owner verified the address.
    emailVerified:
      info.email_verified === true ||
      // Apple sends email_verified as the string "true".
      (p.kind === 'apple' && info.email_verified === 'true') ||
      (p.kind === 'microsoft' && [true, 1, '1', 'true'].includes(info.xms_edov as never)),
    firstName: str(info.given_name),
    lastName: str(info.family_name),
  };
}

/**
 * The user this identity signs in: linked, linked now by verified email, or created — or,
 * for a flow that transfers new users to a sign-up, null (nobody created yet).
 */
async function resolveUser(
  d: D,
  instance: InstanceContext,
  p: ProviderRow,
  id: Identity,
  auditCtx: AuditContext,
  newUser: 'create' | 'transfer',
) {
  const now = d.clock.now();
  const [linked] = await d.db
    .select()
    .from(externalAccounts)
    .where(
      and(
        eq(externalAccounts.instanceId, instance.id),
        eq(externalAccounts.provider, p.name),
        eq(externalAccounts.providerUserId, id.subject),
      ),
    );
  if (linked) {
    await d.db
      .update(externalAccounts)
      .set({ email: id.email, emailVerified: id.emailVerified, updatedAt: now })
      .where(eq(externalAccounts.id, linked.id));
    return { userId: linked.userId, outcome: 'existing' as const };
  }
  if (!id.email) throw refused('email_missing', 'The provider did not share an email address.');
  const [address] = await d.db
    .select()
    .from(emailAddresses)
    .where(and(eq(emailAddresses.instanceId, instance.id), eq(emailAddresses.emailKey, id.email.toLowerCase())));
  if (!id.emailVerified)
    throw refused('email_not_verified', 'The provider has not verified this email address, so it cannot sign in here.');
  if (address) {
    if (address.verificationStatus !== 'verified')
      throw refused('email_not_verified', 'This email address is not verified on the account it belongs to.');
    await linkAccount(d, instance, p, id, address.userId);
    return { userId: address.userId, outcome: 'linked' as const };
  }
  if (newUser === 'transfer') return null;
  return { userId: await createUserOf(d, instance, p, id, auditCtx), outcome: 'created' as const };
}

/** A new user from a verified identity (sign-up mode and allowlist apply), linked to the provider account. */
async function createUserOf(d: D, instance: InstanceContext, p: ProviderRow, id: Identity, auditCtx: AuditContext) {
  await checkSignUpMode(d, instance, id.email!, {});
  const user = await createUser(
    d,
    instance.id,
    {
      email_address: [id.email!],
      ...(id.firstName ? { first_name: id.firstName } : {}),
      ...(id.lastName ? { last_name: id.lastName } : {}),
    },
    { verificationStrategy: strategyOf(p.name), audit: auditCtx },
  );
  await linkAccount(d, instance, p, id, user.id);
  return user.id;
}

async function linkAccount(d: D, instance: InstanceContext, p: ProviderRow, id: Identity, userId: string) {
  const now = d.clock.now();
  await d.db.insert(externalAccounts).values({
    id: newId('eac'),
    instanceId: instance.id,
    userId,
    provider: p.name,
    providerUserId: id.subject,
    email: id.email,
    emailVerified: id.emailVerified,
    createdAt: now,
    updatedAt: now,
  });
}

export interface CallbackQuery {
  state?: string;
  code?: string;
  error?: string;
  error_description?: string;
}

/** The answer of a callback: signed in (the browser's flow), or waiting for the native app's claim. */
export type CallbackOutcome =
  | { kind: 'signed_in'; step: SignInStep; redirectUrl: string; outcome: 'existing' | 'linked' | 'created' | 'transferable' }
  | { kind: 'awaiting_claim'; redirectUrl: string };

/**
 * The provider's redirect back: checks the state (single use, unexpired), that the browser is
 * the one that started the flow (its flow cookie; server/auth/flow-binding.ts) and the same
 * client, exchanges the code (PKCE, nonce, ID token checks by openid-client), then signs in on
 * the flow's client — or, for a flow of a native app, keeps the identity for the app's claim.
 * Every outcome is audited; a failure with its reason.
 */
export async function completeSocialFlow(
  deps: D,
  instance: InstanceContext,
  browser: { client: ClientRow | null; cookieHeader: string | undefined },
  query: CallbackQuery,
  rawQuery: string,
  auditCtx: AuditContext,
): Promise<CallbackOutcome> {
  const seen: { flow?: FlowRow; provider?: ProviderRow } = {};
  return auditedFailure(deps, instance, auditCtx, seen, async () => {
    if (!query.state) throw refused('state_invalid', 'The sign-in link is missing its state.');
    const [flow] = await deps.db
      .update(socialFlows)
      .set({ usedAt: deps.clock.now() })
      .where(and(eq(socialFlows.instanceId, instance.id), eq(socialFlows.stateDigest, sha256Hex(query.state)), isNull(socialFlows.usedAt)))
      .returning();
    seen.flow = flow;
    if (!flow || flow.expiresAt <= deps.clock.now())
      throw refused('state_invalid', 'This sign-in link is unknown, expired or already used; start again.');
    if (flow.codeChallenge === null && !browserHoldsFlow(browser.cookieHeader, flow.id, flow.bindingDigest)) {
      throw refused('flow_binding_mismatch', 'This sign-in was started in another browser (or its cookie is gone); start again here.');
    }
    if (browser.client && browser.client.id !== flow.clientId)
      throw refused('client_mismatch', 'This sign-in was started in another browser; start again here.');
    const provider = await enabledProvider(deps, flow);
    seen.provider = provider;
    if (query.error) throw refused('provider_error', `The provider refused the sign-in (${query.error.slice(0, 64)}).`);
    const identity = await exchange(deps, instance, provider, flow, query.state, rawQuery);
    if (flow.codeChallenge !== null) {
      const claim = newFlowNonce();
      await deps.db
        .update(socialFlows)
        .set({ identityEncrypted: deps.cipher.encrypt(JSON.stringify(identity)), claimDigest: claim.digest })
        .where(eq(socialFlows.id, flow.id));
      return { kind: 'awaiting_claim' as const, redirectUrl: withClaimNonce(flow.redirectUrl, claim.nonce) };
    }
    return {
      kind: 'signed_in' as const,
      ...(await finishSocialFlow(deps, instance, flow, provider, identity, auditCtx, browser.client?.id === flow.clientId)),
    };
  });
}

/**
 * The native app claims the social sign-in it started (sign-in attempt `signInId`): the
 * claim nonce its browser came back with and the verifier of its code challenge; then the
 * sign-in completes on the app's client. Null: no social flow of this id and client.
 */
export async function claimSocialSignIn(
  deps: D,
  instance: InstanceContext,
  clientId: string,
  signInId: string,
  proof: { claimNonce: string; codeVerifier: string },
  auditCtx: AuditContext,
) {
  const [flow] = await deps.db
    .select()
    .from(socialFlows)
    .where(and(eq(socialFlows.instanceId, instance.id), eq(socialFlows.signInId, signInId), eq(socialFlows.clientId, clientId)));
  if (!flow) return null;
  const holds =
    flow.expiresAt > deps.clock.now() &&
    flow.identityEncrypted !== null &&
    nonceMatches(proof.claimNonce, flow.claimDigest) &&
    verifierMatches(proof.codeVerifier, flow.codeChallenge);
  if (!holds) throw claimRefused();
  // Single use: the claim nonce goes as the sign-in is taken.
  const [taken] = await deps.db
    .update(socialFlows)
    .set({ claimDigest: null })
    .where(and(eq(socialFlows.id, flow.id), eq(socialFlows.claimDigest, flow.claimDigest!)))
    .returning({ id: socialFlows.id });
  if (!taken) throw claimRefused();
  const identity = JSON.parse(deps.cipher.decrypt(flow.identityEncrypted!)) as Identity;
  const seen: { flow?: FlowRow; provider?: ProviderRow } = { flow };
  return auditedFailure(deps, instance, auditCtx, seen, async () => {
    const provider = await enabledProvider(deps, flow);
    seen.provider = provider;
    // The claim is the app's own request: its client token is rotated.
    return finishSocialFlow(deps, instance, flow, provider, identity, auditCtx, true);
  });
}

async function enabledProvider(deps: Pick<D, 'db'>, flow: FlowRow) {
  const [provider] = await deps.db
    .select()
    .from(socialProviders)
    .where(and(eq(socialProviders.id, flow.providerId), eq(socialProviders.enabled, true)));
  if (!provider) throw refused('state_invalid', 'This social provider is no longer enabled.');
  return provider;
}

/**
 * Signs in the user of a verified identity on the flow's client: the sign-in attempt announced
 * at the start, completed. A new user of a flow that transfers (Clerk's) is not created here:
 * the attempt waits `transferable` with the identity kept on the flow (transferSocialSignIn).
 */
async function finishSocialFlow(
  deps: D,
  instance: InstanceContext,
  f: FlowRow,
  p: ProviderRow,
  identity: Identity,
  auditCtx: AuditContext,
  /** The completing request presented the flow's client token (then rotated). */
  presentedClient: boolean,
) {
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const resolved = await resolveUser(d, instance, p, identity, auditCtx, f.newUser);
    const attempt = await recordSignInAttempt(d, {
      id: f.signInId,
      instanceId: instance.id,
      clientId: f.clientId,
      identifier: identity.email ?? `${strategyOf(p.name)}:${identity.subject}`,
      userId: resolved?.userId ?? null,
    });
    if (!resolved) {
      await tx
        .update(socialFlows)
        .set({ identityEncrypted: deps.cipher.encrypt(JSON.stringify(identity)) })
        .where(eq(socialFlows.id, f.id));
      await auditSocialSignIn(d, instance, auditCtx, f, p, null, 'transferable', attempt);
      return { step: { attempt, client: null } as SignInStep, redirectUrl: f.redirectUrl, outcome: 'transferable' as const };
    }
    const step = await completeFirstFactor(d, instance, attempt, strategyOf(p.name), auditCtx, { presentedClient });
    await auditSocialSignIn(d, instance, auditCtx, f, p, resolved.userId, resolved.outcome, step.attempt);
    return { step, redirectUrl: landingOf(f, step), outcome: resolved.outcome };
  });
}

/** A complete sign-in lands on the flow's complete URL when it has one; anything left to do (a second factor, a transfer) on redirect_url. */
const landingOf = (f: FlowRow, step: SignInStep) =>
  step.attempt.status === 'complete' && f.completeRedirectUrl ? f.completeRedirectUrl : f.redirectUrl;

async function auditSocialSignIn(
  d: D,
  instance: InstanceContext,
  auditCtx: AuditContext,
  f: FlowRow,
  p: ProviderRow,
  userId: string | null,
  outcome: string,
  attempt: SignInStep['attempt'],
) {
  await audit(d, {
    instanceId: instance.id,
    actor: auditCtx.actor,
    actorKind: auditCtx.actorKind,
    action: 'social.sign_in',
    target: userId ?? f.signInId,
    ip: auditCtx.ip,
    userAgent: auditCtx.userAgent,
    details: {
      provider: p.name,
      outcome,
      purpose: f.purpose,
      sign_in_attempt_id: f.signInId,
      session_id: attempt.sessionId,
      status: attempt.status,
    },
  });
}

/**
 * Clerk's transfer (`signUp.create({ transfer: true })`): the client's social sign-in that found
 * no user becomes a sign-up — the user is created from the provider's verified identity (sign-up
 * mode and allowlist apply), linked, and signed in on the same client through the attempt the
 * flow announced. Only the client that started the flow (and came back through its callback with
 * the flow cookie) holds such a sign-in; once used it is gone. Null: nothing to transfer.
 */
export async function transferSocialSignIn(deps: D, instance: InstanceContext, clientId: string, auditCtx: AuditContext) {
  const found = await transferableFlow(deps, instance.id, { clientId });
  if (!found) return null;
  const seen: { flow?: FlowRow; provider?: ProviderRow } = { flow: found.flow };
  return auditedFailure(deps, instance, auditCtx, seen, () =>
    deps.db.transaction(async (tx) => {
      const d = { ...deps, db: tx };
      // Single use: the identity goes as the user is made.
      const [taken] = await tx
        .update(socialFlows)
        .set({ identityEncrypted: null })
        .where(and(eq(socialFlows.id, found.flow.id), isNotNull(socialFlows.identityEncrypted)))
        .returning({ id: socialFlows.id });
      if (!taken) return null;
      const provider = await enabledProvider(d, found.flow);
      seen.provider = provider;
      const identity = JSON.parse(deps.cipher.decrypt(found.flow.identityEncrypted!)) as Identity;
      const userId = await createUserOf(d, instance, provider, identity, auditCtx);
      const [attempt] = await tx
        .update(signInAttempts)
        .set({ userId, updatedAt: deps.clock.now() })
        .where(eq(signInAttempts.id, found.attempt.id))
        .returning();
      // The transfer is the client's own request: its token is rotated.
      const step = await completeFirstFactor(d, instance, attempt!, strategyOf(provider.name), auditCtx, { presentedClient: true });
      await auditSocialSignIn(d, instance, auditCtx, found.flow, provider, userId, 'created', step.attempt);
      return { step, userId };
    }),
  );
}

/** Runs a step of the flow; a failure is audited (social.sign_in_failed, with its reason) and thrown on. */
async function auditedFailure<T>(
  deps: D,
  instance: InstanceContext,
  auditCtx: AuditContext,
  seen: { flow?: FlowRow; provider?: ProviderRow },
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    const reason = isAppError(err) ? (typeof err.meta.reason === 'string' ? err.meta.reason : err.code) : 'internal_error';
    await audit(deps, {
      instanceId: instance.id,
      actor: auditCtx.actor,
      actorKind: auditCtx.actorKind,
      action: 'social.sign_in_failed',
      target: seen.flow?.signInId ?? null,
      ip: auditCtx.ip,
      userAgent: auditCtx.userAgent,
      details: { reason, provider: seen.provider?.name ?? null, message: err instanceof Error ? err.message.slice(0, 300) : null },
    });
    throw err;
  }
}

/** Drops social flows past their 10 minutes (used or not); run with the other housekeeping. */
export async function purgeSocialFlows(deps: Pick<Deps, 'db' | 'clock'>) {
  const gone = await deps.db.delete(socialFlows).where(lt(socialFlows.expiresAt, deps.clock.now())).returning({ id: socialFlows.id });
  return { social_flows: gone.length };
}
