import { transferableStrategy } from './social-transfer';
import type { AuditContext } from '../http/actor';
import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import type { Db } from '../db/client';
import { emailAddresses, signInAttempts, users, type SignInStatus, type sessions } from '../db/schema';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { createClient, newClient, setActiveSession, type ClientRow } from '../sessions/clients';
import { fromJson, rowFromJson, writeTogether } from '../db/together';
import { applySessionAction, revokeLiveSessions } from '../sessions/sessions';
import { bumpSessionsVersion } from '../sessions/session-state';
import { hasSecondFactor, recordSecondFactor, verifySecondFactor, type SecondFactorStrategy } from '../users/mfa';
import { hasPasskey } from '../passkeys/passkeys';
import { isPasskeyOnly, PASSKEY_ONLY_IDENTIFIER, verifyAssertion } from '../passkeys/sign-in';
import type { RelyingParty } from '../passkeys/relying-party';
import type { AuthenticationResponseJSON } from '../passkeys/webauthn';
import type { PasswordHasher } from '../crypto/passwords';
import { getUser } from '../users/users';
import { assertNotLocked, assertUserRowNotLocked, endTimedLockout, recordFailedAttempt } from '../protection/lockout';
import { maskEmail, type SignInOrigin } from '../protection/risk';
import { checkGuessedPassword, storedPasswordOf, type StoredPassword } from './password-guess';
import { storedPasswordSql, type SignInIdentifierKind } from './statements';
import { completeSignIn, newAttemptWrite, recordSignInAttempt, signInCompleted, SIGN_IN_TTL_MS } from './complete-sign-in';
import { checkCode, latestCode, verificationView } from '../verification/codes';
import { checkNewPassword } from '../users/password-policy';
import { DEFAULT_SIGN_IN_METHODS, type SignInMethods } from '../instances/password-rules';
import { sendCode, sendSmsCode } from '../verification/send-code';
import { assertPasswordAllowed } from '../organizations/sso-domains';
import { assertAppUrl, emailLink, redeemLink, type LinkRedemption } from '../users/email-links';

/**
 * FAPI sign-in by identifier (email address, username, or phone number when `phone_code` is
 * on): first factor `password`, `email_code`, `phone_code` (a phone number's SMS code) or
 * `reset_password_email_code` (then a new password), then `totp` or `backup_code` when the
 * user has a second factor.
 *
 * No existence oracle: an attempt for an identifier that names nobody is created and
 * answered like any other (same status, same supported factors — derived from the kind of
 * identifier, never from the user), a code "sent" to it is issued and counted but not
 * sent, a password is checked against a dummy argon2id digest, and every failure answers
 * the same code (CREDENTIALS_INVALID, CODE_INCORRECT …) as for a real user. Only a correct
 * first factor reveals anything (USER_BANNED).
 *
 * After the first factor: a user with a second factor gets a `pending` session
 * (session.created, session.pending) until `totp`/`backup_code` succeeds, which activates
 * it; otherwise the session is `active` (or `pending` with the `setup_mfa` task when the
 * instance requires MFA and the user has none). A password reset revokes every live
 * session of the user (session.revoked each, sessions_version bumped) before the new one.
 */
type SignInRow = typeof signInAttempts.$inferSelect;
type D = Deps;

export { SIGN_IN_TTL_MS };

/** Wrong second-factor codes one attempt allows; then it is abandoned and its pending session revoked. */
const SECOND_FACTOR_MAX_FAILURES = 5;

export type FirstFactorStrategy = 'password' | 'email_code' | 'email_link' | 'phone_code' | 'reset_password_email_code' | 'passkey';
const isEmail = (identifier: string) => identifier.includes('@');
/** An E.164 number (`+` and digits): a phone number identifier. */
const isPhone = (identifier: string) => /^\+[1-9]\d{6,14}$/.test(identifier);

/** The first factors an identifier may use under the instance's sign-in methods. */
function firstFactorsFor(identifier: string, methods: SignInMethods = DEFAULT_SIGN_IN_METHODS) {
  if (identifier === PASSKEY_ONLY_IDENTIFIER) return [{ strategy: 'passkey' as const }];
  const safe = isEmail(identifier) ? identifier : null;
  return [
    ...(methods.passkey ? [{ strategy: 'passkey' as const }] : []),
    ...(methods.password ? [{ strategy: 'password' as const }] : []),
    ...(methods.phone_code && isPhone(identifier) ? [{ strategy: 'phone_code' as const, safe_identifier: identifier }] : []),
    ...(methods.email_code ? [{ strategy: 'email_code' as const, safe_identifier: safe }] : []),
    ...(methods.email_link ? [{ strategy: 'email_link' as const, safe_identifier: safe }] : []),
    ...(methods.password ? [{ strategy: 'reset_password_email_code' as const, safe_identifier: safe }] : []),
  ];
}

/** Every first factor the instance offers, whatever the identifier (the environment's `first_factors`). */
export const firstFactorsOf = (methods: SignInMethods) => [
  ...(methods.passkey ? ['passkey'] : []),
  ...(methods.password ? ['password'] : []),
  ...(methods.phone_code ? ['phone_code'] : []),
  ...(methods.email_code ? ['email_code'] : []),
  ...(methods.email_link ? ['email_link'] : []),
  ...(methods.password ? ['reset_password_email_code'] : []),
];

/** The identifiers the instance takes: an email address always, a username and a phone number when on. */
export const identifiersOf = (methods: SignInMethods) => [
  'email_address',
  ...(methods.username ? ['username'] : []),
  ...(methods.phone_code ? ['phone_number'] : []),
];

/** Refuses a first factor the instance has turned off (reset by email code goes with the password), or phone_code for another identifier. */
function assertStrategyAllowed(instance: InstanceContext, a: Pick<SignInRow, 'identifier'>, strategy: FirstFactorStrategy) {
  const methods = instance.settings.sign_in_methods;
  // An attempt started without an identifier (a username-less passkey) takes nothing else.
  if (isPasskeyOnly(a) && strategy !== 'passkey')
    throw validationError(
      'strategy',
      'strategy_not_allowed',
      'This sign-in was started for a passkey; send its answer (strategy passkey).',
    );
  const allowed =
    strategy === 'passkey'
      ? methods.passkey
      : strategy === 'email_code'
        ? methods.email_code
        : strategy === 'email_link'
          ? methods.email_link
          : strategy === 'phone_code'
            ? methods.phone_code && isPhone(a.identifier)
            : methods.password;
  if (!allowed) throw validationError('strategy', 'strategy_not_allowed', `This application does not accept ${strategy} sign-ins here.`);
}

const SECOND_FACTORS = [{ strategy: 'totp' as const }, { strategy: 'backup_code' as const }];
/** The second factors an instance may ask for: TOTP and backup codes, and passkeys when they are on. */
export const secondFactorsOfInstance = (methods: SignInMethods) => [
  ...SECOND_FACTORS.map((f) => f.strategy),
  ...(methods.passkey ? ['passkey' as const] : []),
];
/** A second factor of sign-in: the user's TOTP, backup code or passkey, or an email code when risk-based MFA steps up a user without TOTP. */
export type SignInSecondFactor = SecondFactorStrategy | 'email_code' | 'passkey';

/**
 * The second factors an attempt takes: the email code of a step-up, else the user's own —
 * TOTP and backup codes when they have TOTP, a passkey when they have one and passkeys are on.
 */
async function secondFactorsOf(
  deps: Pick<Deps, 'db'>,
  a: SignInRow,
  methods: SignInMethods,
): Promise<{ strategy: SignInSecondFactor; safe_identifier?: string }[]> {
  if (a.stepUpAddress) return [{ strategy: 'email_code', safe_identifier: maskEmail(a.stepUpAddress) }];
  if (!a.userId) return SECOND_FACTORS;
  const [totp, passkey] = await Promise.all([hasSecondFactor(deps.db, a.userId), methods.passkey ? hasPasskey(deps, a.userId) : false]);
  return [...(totp ? SECOND_FACTORS : []), ...(passkey ? [{ strategy: 'passkey' as const }] : [])];
}

/** How an identifier names a user (statements.ts looks them up): its kind and key (lowercased, a phone number as typed). */
function identifierKey(identifier: string): { kind: SignInIdentifierKind; key: string } {
  if (isEmail(identifier)) return { kind: 'email', key: identifier.toLowerCase() };
  if (isPhone(identifier)) return { kind: 'phone', key: identifier };
  return { kind: 'username', key: identifier.toLowerCase() };
}

export async function signInView(deps: Pick<Deps, 'db' | 'clock'>, a: SignInRow, methods: SignInMethods = DEFAULT_SIGN_IN_METHODS) {
  const now = deps.clock.now();
  let first = null;
  if (a.firstFactorStrategy) {
    first = { object: 'verification' as const, status: 'verified' as const, strategy: a.firstFactorStrategy, attempts: 0, expire_at: null };
  } else {
    const purposes = ['sign_in', 'sign_in_phone', 'sign_in_link', 'reset_password'] as const;
    const codes = await Promise.all(purposes.map((p) => latestCode(deps, a.id, p)));
    const latest = codes.reduce((l, c) => (c && (!l || c.createdAt >= l.createdAt) ? c : l), null);
    const strategyOf = { sign_in: 'email_code', sign_in_phone: 'phone_code', sign_in_link: 'email_link' } as Record<string, string>;
    first = latest ? verificationView(strategyOf[latest.purpose] ?? 'reset_password_email_code', latest, now) : null;
    // A social sign-in that found no user, waiting for the client's sign-up to take it over.
    const transfer = first ? null : await transferableStrategy(deps, a);
    if (transfer)
      first = { object: 'verification' as const, status: 'transferable' as const, strategy: transfer, attempts: 0, expire_at: null };
  }
  return {
    object: 'sign_in_attempt' as const,
    id: a.id,
    status: a.status,
    identifier: isPasskeyOnly(a) ? null : (a.identifier as string | null),
    supported_identifiers: identifiersOf(methods),
    supported_first_factors: firstFactorsFor(a.identifier, methods) as { strategy: string; safe_identifier?: string | null }[],
    supported_second_factors: a.status === 'needs_second_factor' ? await secondFactorsOf(deps, a, methods) : null,
    step_up_reasons: a.riskReasons,
    first_factor_verification: first,
    second_factor_verification: a.secondFactorStrategy
      ? {
          object: 'verification' as const,
          status: 'verified' as const,
          strategy: a.secondFactorStrategy,
          attempts: a.secondFactorFailures,
          expire_at: null,
        }
      : null,
    created_session_id: a.sessionId,
    abandon_at: a.abandonAt as number | null,
    created_at: a.createdAt as number | null,
    updated_at: a.updatedAt as number | null,
  };
}

/**
 * Creates a sign-in attempt (and the client when there is none), in one statement. Answers
 * the same whether or not the identifier exists. `withPassword`: a password comes with it,
 * and what its check needs of the user is read in the same statement (`stored`).
 */
export async function createSignIn(
  deps: D,
  instance: InstanceContext,
  identifier: string,
  client: ClientRow | null,
  opts: { withPassword?: boolean } = {},
): Promise<{ attempt: SignInRow; client: ClientRow; newClientToken: string | null; stored?: StoredPassword | null }> {
  const methods = instance.settings.sign_in_methods;
  const allowed = isEmail(identifier) || (isPhone(identifier) ? methods.phone_code : methods.username);
  if (!allowed) {
    throw validationError(
      'identifier',
      'identifier_not_allowed',
      methods.phone_code ? 'Sign in with your email address or phone number.' : 'Sign in with your email address.',
    );
  }
  const { kind, key } = identifierKey(identifier);
  const fresh = client ? null : newClient(deps, instance.id);
  const c = client ?? fresh!.client;
  const [answers] = await writeTogether(deps.db, [
    {
      writes: [fresh?.write ?? null],
      returning: { attempt: newAttemptWrite(deps, { instanceId: instance.id, clientId: c.id, identifier, kind, key }) },
      reads: opts.withPassword ? { stored: storedPasswordSql(instance.id, kind, key) } : {},
    },
  ]);
  const attempt = rowFromJson(signInAttempts, answers!.attempt)!;
  return {
    attempt,
    client: c,
    newClientToken: fresh?.token ?? null,
    ...(opts.withPassword ? { stored: fromJson<StoredPassword | null>(answers!.stored) } : {}),
  };
}

/** Starts a username-less passkey sign-in: an attempt without an identifier (the passkey will name the user). */
export async function createPasskeySignIn(deps: D, instance: InstanceContext, client: ClientRow | null) {
  if (!instance.settings.sign_in_methods.passkey)
    throw validationError('strategy', 'strategy_not_allowed', 'This application does not accept passkey sign-ins.');
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    let newClientToken: string | null = null;
    let c = client;
    if (!c) ({ client: c, token: newClientToken } = await createClient(d, instance.id));
    const attempt = await recordSignInAttempt(d, {
      instanceId: instance.id,
      clientId: c.id,
      identifier: PASSKEY_ONLY_IDENTIFIER,
      userId: null,
    });
    return { attempt, client: c, newClientToken };
  });
}

/** Refuses a passkey step for an attempt that is not waiting for it (the options come with the same checks). */
export async function assertPasskeyStep(deps: Pick<Deps, 'db'>, instance: InstanceContext, a: SignInRow, factor: 'first' | 'second') {
  if (factor === 'first') {
    assertStatus(a, 'needs_first_factor');
    assertStrategyAllowed(instance, a, 'passkey');
  } else {
    assertStatus(a, 'needs_second_factor');
    await assertOffered(deps, instance, a, 'passkey');
  }
}

/** The client's own live attempt; another client's, another instance's or an abandoned one is 404. */
export async function loadSignIn(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, client: ClientRow | null, id: string) {
  if (!client) throw notFound('sign-in attempt');
  const [row] = await deps.db
    .select()
    .from(signInAttempts)
    .where(and(eq(signInAttempts.id, id), eq(signInAttempts.instanceId, instance.id), eq(signInAttempts.clientId, client.id)));
  if (!row || row.status === 'abandoned' || (row.status !== 'complete' && row.abandonAt <= deps.clock.now()))
    throw notFound('sign-in attempt');
  return row;
}

function assertStatus(a: SignInRow, status: SignInStatus) {
  if (a.status !== status) {
    throw new AppError('CONFLICT', { message: `This sign-in attempt is ${a.status}, not ${status}.`, meta: { status: a.status } });
  }
}

/**
 * Where an email code for this attempt goes: the identifier itself (an email address of
 * the user) or the primary address of the user a username names. `address` keys the
 * reissue caps; `to` is null when nothing may be sent (nobody, or no address).
 */
async function codeRecipient(db: Db, instanceId: string, a: SignInRow): Promise<{ address: string; to: string | null }> {
  if (isEmail(a.identifier)) {
    if (!a.userId) return { address: a.identifier, to: null };
    const [row] = await db
      .select({ email: emailAddresses.emailAddress })
      .from(emailAddresses)
      .where(
        and(
          eq(emailAddresses.instanceId, instanceId),
          eq(emailAddresses.emailKey, a.identifier.toLowerCase()),
          eq(emailAddresses.userId, a.userId),
        ),
      );
    return { address: a.identifier, to: row?.email ?? null };
  }
  if (a.userId) {
    const [row] = await db
      .select({ email: emailAddresses.emailAddress })
      .from(users)
      .innerJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
      .where(and(eq(users.id, a.userId), eq(users.instanceId, instanceId)));
    if (row) return { address: row.email, to: row.email };
  }
  return { address: `username:${a.identifier.toLowerCase()}`, to: null };
}

/** Sends the email code of `email_code` or `reset_password_email_code`; answers the same for an unknown identifier. */
export async function prepareFirstFactor(
  deps: D,
  instance: InstanceContext,
  a: SignInRow,
  strategy: Exclude<FirstFactorStrategy, 'password'>,
  /**
   * The request's Accept-Language: the email is in the user's locale, else this one; its IP and User-Agent, which a link's email names;
   * `redirectUrl`: the app's page a link lands on once opened (email-links.ts).
   */
  opts: { acceptLanguage?: string | null; ip?: string | null; userAgent?: string | null; redirectUrl?: string } = {},
) {
  assertStatus(a, 'needs_first_factor');
  assertStrategyAllowed(instance, a, strategy);
  // A lockout slows password guessing only: codes and links prove the mailbox or phone, and stay open to the owner.
  if (strategy === 'phone_code') {
    // The number itself: a code to a number nobody has verified is issued and counted, not sent.
    await sendSmsCode(deps, {
      instanceId: instance.id,
      attemptId: a.id,
      purpose: 'sign_in_phone',
      phone: a.identifier,
      userId: a.userId,
      param: 'identifier',
      acceptLanguage: opts.acceptLanguage,
    });
    return a;
  }
  await assertPasswordAllowed(deps, instance.id, a.identifier);
  if (strategy === 'email_link') assertAppUrl(instance, opts.redirectUrl);
  const recipient = await codeRecipient(deps.db, instance.id, a);
  await sendCode(deps, {
    instanceId: instance.id,
    attemptId: a.id,
    purpose: strategy === 'email_code' ? 'sign_in' : strategy === 'email_link' ? 'sign_in_link' : 'reset_password',
    address: recipient.address,
    to: recipient.to,
    userId: a.userId,
    acceptLanguage: opts.acceptLanguage,
    ...(strategy === 'email_link' ? emailLink(deps, instance, a.id, opts) : {}),
  });
  return a;
}

/**
 * Redeems an emailed sign-in link (email-links.ts redeemLink): the first factor completes for
 * the attempt's own client — the browser that asked is signed in (its tab, polling the attempt,
 * moves on); whoever clicked gets nothing but the outcome, unless it is that browser (`clickedBy`,
 * the clicking browser's client).
 */
export function redeemSignInLink(
  deps: D,
  instance: InstanceContext,
  attemptId: string,
  secret: string,
  clickedBy: string | null,
  auditCtx: AuditContext,
): Promise<LinkRedemption> {
  return redeemLink(deps, instance, {
    load: async () => {
      const [a] = await deps.db
        .select()
        .from(signInAttempts)
        .where(and(eq(signInAttempts.id, attemptId), eq(signInAttempts.instanceId, instance.id)));
      if (!a || a.status !== 'needs_first_factor' || a.abandonAt <= deps.clock.now()) return null;
      return { flow: a, sameBrowser: clickedBy === a.clientId };
    },
    redeem: async (d, a) => {
      const check = await checkCode(d, { attemptId: a.id, purpose: 'sign_in_link', code: secret, accept: a.userId !== null });
      if (!check.ok) return check;
      // Opened in the browser that asked, its token rotates; opened elsewhere, that browser is not in the request.
      const step = await completeFirstFactor(d, instance, a, 'email_link', auditCtx, { presentedClient: clickedBy === a.clientId });
      return { ok: true, clientToken: step.clientToken ?? null, sessionId: step.attempt.sessionId };
    },
  });
}

const credentialsInvalid = () => new AppError('CREDENTIALS_INVALID', { meta: { param: 'password' } });

export interface SignInStep {
  attempt: SignInRow;
  client: ClientRow | null;
  /** The client token to hand over (a rotated or new one); null keeps the one it has. */
  clientToken?: string | null;
  /** The session this step created, if it created one. */
  session?: typeof sessions.$inferSelect;
}

/**
 * After a first factor (or a password reset, or a social provider's answer) succeeded: the
 * one ending of every sign-in (complete-sign-in.ts) for this attempt. `presentedClient`:
 * the completing request is the attempt's own client (its token is rotated). Runs in the
 * caller's transaction.
 */
export async function completeFirstFactor(
  d: D,
  instance: InstanceContext,
  a: SignInRow,
  strategy: FirstFactorStrategy | `oauth_${string}`,
  auditCtx: AuditContext,
  opts: { presentedClient: boolean },
): Promise<SignInStep> {
  if (!a.userId) throw credentialsInvalid();
  const end = await completeSignIn(d, instance, {
    way: strategy,
    userId: a.userId,
    attempt: a,
    client: { id: a.clientId },
    presentedClient: opts.presentedClient,
    auditCtx,
  });
  return { attempt: end.attempt!, client: end.client, clientToken: end.clientToken, session: end.session };
}

const originOf = (a: SignInRow, ctx: AuditContext): SignInOrigin => ({ clientId: a.clientId, ip: ctx.ip, userAgent: ctx.userAgent });

export type FirstFactorInput =
  /** `stored`: the user's digest and lock as createSignIn read them (undefined: read here). */
  | { strategy: 'password'; password: string; stored?: StoredPassword | null }
  | { strategy: 'passkey'; credential: AuthenticationResponseJSON; rp: RelyingParty }
  | { strategy: 'email_code' | 'phone_code' | 'reset_password_email_code'; code: string };

/** Attempts a first factor. Every failure answers the same whether or not the identifier names a user. */
export async function attemptFirstFactor(
  deps: D,
  instance: InstanceContext,
  a: SignInRow,
  input: FirstFactorInput,
  auditCtx: AuditContext,
): Promise<SignInStep> {
  assertStatus(a, 'needs_first_factor');
  assertStrategyAllowed(instance, a, input.strategy);
  if (input.strategy === 'passkey') {
    // Verified (and its challenge spent) before the transaction: a refusal keeps nothing.
    const proved = await verifyAssertion(deps, instance, input.rp, a, 'sign_in', input.credential, auditCtx);
    return deps.db.transaction((tx) =>
      completeFirstFactor({ ...deps, db: tx }, instance, { ...a, userId: proved.userId }, 'passkey', auditCtx, { presentedClient: true }),
    );
  }
  if (input.strategy === 'password') {
    // The lock and the digest in one read, before the costly hash.
    const stored = !a.userId ? null : input.stored !== undefined ? input.stored : await storedPasswordOf(deps.db, instance.id, a.userId);
    if (stored) assertUserRowNotLocked(deps, instance, stored);
    else await assertNotLocked(deps, instance, a);
    await assertPasswordAllowed(deps, instance.id, a.identifier);
    const known = await checkGuessedPassword(deps, instance, stored, input.password, a, auditCtx, credentialsInvalid);
    // An imported digest becomes argon2id, and one made at another cost takes the configured one, at the first successful sign-in.
    const rehash =
      known && deps.passwords.needsRehash(known.hasher as PasswordHasher, known.digest) ? await deps.passwords.hash(input.password) : null;
    return deps.db.transaction(async (tx) => {
      const d = { ...deps, db: tx };
      if (rehash) {
        await tx
          .update(users)
          .set({ passwordDigest: rehash, passwordHasher: 'argon2id' })
          .where(and(eq(users.id, a.userId!), eq(users.passwordDigest, known!.digest)));
      }
      return completeFirstFactor(d, instance, a, 'password', auditCtx, { presentedClient: true });
    });
  }

  const reset = input.strategy === 'reset_password_email_code';
  const outcome = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const purpose = reset ? 'reset_password' : input.strategy === 'phone_code' ? 'sign_in_phone' : 'sign_in';
    const check = await checkCode(d, { attemptId: a.id, purpose, code: input.code, accept: a.userId !== null });
    if (!check.ok) return check;
    if (!reset)
      return {
        ok: true as const,
        step: await completeFirstFactor(d, instance, a, input.strategy as 'email_code' | 'phone_code', auditCtx, { presentedClient: true }),
      };
    // The code proves the mailbox; the banned check waits for the new password's step.
    const [next] = await tx
      .update(signInAttempts)
      .set({ status: 'needs_new_password', firstFactorStrategy: 'reset_password_email_code', updatedAt: deps.clock.now() })
      .where(and(eq(signInAttempts.id, a.id), eq(signInAttempts.status, 'needs_first_factor')))
      .returning();
    if (!next) throw new AppError('CONFLICT', { message: 'This sign-in attempt changed meanwhile; start again.' });
    return { ok: true as const, step: { attempt: next, client: null } };
  });
  // A wrong code is limited by its own attempts (5 a code) and send budgets; it never counts towards the account's lockout.
  if (!outcome.ok) throw outcome.error;
  return outcome.step;
}

/**
 * Sets the new password after a verified reset code (policy applies), revokes every live
 * session of the user and bumps sessions_version (outstanding JWTs stop verifying), emits
 * user.updated, then signs in as a first factor would (second factor still due).
 */
export async function resetPassword(deps: D, instance: InstanceContext, a: SignInRow, password: string, auditCtx: AuditContext) {
  assertStatus(a, 'needs_new_password');
  const current = await getUser(deps, instance.id, a.userId!);
  await checkNewPassword(deps, instance, password, [...current.email_addresses.map((e) => e.email_address), current.username]);
  const digest = await deps.passwords.hash(password);
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const user = await bumpSessionsVersion(d, instance.id, a.userId!, {
      passwordDigest: digest,
      passwordHasher: 'argon2id',
      updatedAt: deps.clock.now(),
    });
    if (!user) throw credentialsInvalid();
    if (user.banned) throw new AppError('USER_BANNED', { message: 'This user is banned and cannot sign in.' });
    const revoked = await revokeLiveSessions(d, instance.id, a.userId!);
    // The owner proved the mailbox: a lockout from someone's wrong guesses ends (an operator's lock does not).
    await endTimedLockout(d, instance, a.userId!);
    await emitEvent(d, instance.id, 'user.updated', await getUser(d, instance.id, a.userId!));
    await audit(d, {
      instanceId: instance.id,
      actor: auditCtx.actor,
      action: 'user.password_reset',
      target: a.userId!,
      ip: auditCtx.ip,
      userAgent: auditCtx.userAgent,
      details: { sign_in_attempt_id: a.id, revoked_sessions: revoked.length },
    });
    return completeFirstFactor(d, instance, a, 'reset_password_email_code', auditCtx, { presentedClient: true });
  });
}

/**
 * Checks a TOTP or backup code for the attempt's pending session and activates it. A
 * wrong code answers CODE_INCORRECT; the fifth abandons the attempt, revokes its pending
 * session and answers TOO_MANY_ATTEMPTS.
 */
export async function attemptSecondFactor(
  deps: D,
  instance: InstanceContext,
  a: SignInRow,
  input:
    | { strategy: Exclude<SignInSecondFactor, 'passkey'>; code: string }
    | { strategy: 'passkey'; credential: AuthenticationResponseJSON; rp: RelyingParty },
  auditCtx: AuditContext,
): Promise<SignInStep> {
  assertStatus(a, 'needs_second_factor');
  await assertSecondFactorOpen(deps, instance, a);
  await assertOffered(deps, instance, a, input.strategy);
  // A passkey's refusal is no guess (nothing to count): verifyAssertion throws it as it is.
  let ok: boolean;
  if (input.strategy === 'passkey') {
    await verifyAssertion(deps, instance, input.rp, a, 'second_factor', input.credential, auditCtx);
    ok = true;
  } else {
    ok =
      input.strategy === 'email_code'
        ? await checkStepUpCode(deps, a, input.code)
        : await verifySecondFactor(deps, instance.id, a.userId!, input.strategy, input.code);
  }
  const now = deps.clock.now();
  if (!ok) {
    const failures = a.secondFactorFailures + 1;
    const exhausted = failures >= SECOND_FACTOR_MAX_FAILURES;
    await deps.db.transaction(async (tx) => {
      await tx
        .update(signInAttempts)
        .set({ secondFactorFailures: failures, status: exhausted ? 'abandoned' : a.status, updatedAt: now })
        .where(eq(signInAttempts.id, a.id));
      if (exhausted && a.sessionId) {
        await applySessionAction({ ...deps, db: tx }, instance.id, a.sessionId, 'revoke', {
          ...auditCtx,
          actor: 'system:second_factor_attempts',
        }).catch(() => undefined);
      }
    });
    const locked = await recordFailedAttempt(deps, instance, a, auditCtx);
    if (locked) throw locked;
    if (exhausted) {
      throw new AppError('TOO_MANY_ATTEMPTS', {
        message: 'Too many incorrect codes; sign in again.',
        meta: { reason: 'second_factor_attempts' },
      });
    }
    throw new AppError('CODE_INCORRECT', { meta: { param: 'code', remaining_attempts: SECOND_FACTOR_MAX_FAILURES - failures } });
  }
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    await applySessionAction(d, instance.id, a.sessionId!, 'activate', auditCtx);
    // The session's second factor is fresh (reverification, `fva`): a TOTP or backup code, not a risk step-up's email code.
    if (input.strategy === 'totp' || input.strategy === 'backup_code') await recordSecondFactor(d, a.sessionId!);
    const { client } = await setActiveSession(d, a.clientId, a.sessionId!);
    const [next] = await tx
      .update(signInAttempts)
      .set({ status: 'complete', secondFactorStrategy: input.strategy, updatedAt: now })
      .where(and(eq(signInAttempts.id, a.id), eq(signInAttempts.status, 'needs_second_factor')))
      .returning();
    if (!next) throw new AppError('CONFLICT', { message: 'This sign-in attempt changed meanwhile; start again.' });
    await signInCompleted(d, instance, { userId: next.userId!, riskReasons: next.riskReasons }, originOf(a, auditCtx));
    return { attempt: next, client };
  });
}

/**
 * The second factor after a password is a guess like the password: a lockout stops it. After
 * a code, a link or a federated sign-in it is not stopped by someone else's wrong passwords.
 */
async function assertSecondFactorOpen(deps: D, instance: InstanceContext, a: SignInRow) {
  await assertNotLocked(deps, instance, a, { timed: a.firstFactorStrategy === 'password' });
}

async function assertOffered(deps: Pick<Deps, 'db'>, instance: InstanceContext, a: SignInRow, strategy: SignInSecondFactor) {
  const offered = (await secondFactorsOf(deps, a, instance.settings.sign_in_methods)).map((f) => f.strategy);
  if (!offered.includes(strategy)) {
    throw validationError('strategy', 'invalid_value', `This sign-in takes ${offered.join(' or ')} as its second factor.`);
  }
}

/** Checks the step-up email code; false for a wrong one (counted as a failed second factor), throws when none is pending. */
async function checkStepUpCode(deps: D, a: SignInRow, code: string): Promise<boolean> {
  const check = await deps.db.transaction((tx) => checkCode({ ...deps, db: tx }, { attemptId: a.id, purpose: 'second_factor', code }));
  if (check.ok) return true;
  if (check.error.code === 'CODE_INCORRECT' || check.error.code === 'TOO_MANY_ATTEMPTS') return false;
  throw check.error;
}

/**
 * Prepares a second factor: emails the step-up code (email_code; reissue caps apply);
 * TOTP and backup codes need nothing sent.
 */
export async function prepareSecondFactor(
  deps: D,
  instance: InstanceContext,
  a: SignInRow,
  strategy: SignInSecondFactor,
  opts: { acceptLanguage?: string | null } = {},
) {
  assertStatus(a, 'needs_second_factor');
  await assertSecondFactorOpen(deps, instance, a);
  await assertOffered(deps, instance, a, strategy);
  if (strategy !== 'email_code') return a;
  await sendCode(deps, {
    instanceId: instance.id,
    attemptId: a.id,
    purpose: 'second_factor',
    address: a.stepUpAddress!,
    to: a.stepUpAddress!,
    userId: a.userId,
    acceptLanguage: opts.acceptLanguage,
  });
  return a;
}
