import type { AuditContext } from '../http/actor';
import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { phoneNumbers, signUpAttempts, users } from '../db/schema';
import { allValidationProblems, AppError, notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { assertMetadata } from '../http/metadata';
import type { InstanceContext } from '../instances/instances';
import type { InstanceSettings } from '../instances/settings';
import { newClient, type ClientRow } from '../sessions/clients';
import { rowFromJson, writeTogether, type Part } from '../db/together';
import { emailTakenSql, signUpInsertSql } from './statements';
import { runStatement } from '../db/prepared';
import { rowsOf } from '../db/rows';
import { completeSignIn } from './complete-sign-in';
import { createUser } from '../users/users';
import { checkCode, latestCode, samePurposes, verificationView } from '../verification/codes';
import { checkNewPassword } from '../users/password-policy';
import { sendCode, sendSmsCode } from '../verification/send-code';
import { assertCountryAllowed } from '../sms/pumping';
import { completeWaitlistEntry, waitlistAdmits } from '../waitlist/waitlist';
import { acceptInvitations, hasPendingInvitation } from '../invitations/invitations';
import { assertPasswordAllowed } from '../organizations/sso-domains';
import { assertLinkAsked, emailLink, redeemLink, type LinkRedemption } from '../users/email-links';
import { isOrganizationInvitationToken, pendingInvitationFor } from '../organizations/invitations';

/**
 * FAPI sign-up: create an attempt with the user's fields, prepare (email a 6-digit code)
 * and attempt (check it) the verification of the email address. A verified attempt
 * creates the user (user.created, address verified by `email_code`) and a session on the
 * client (session.created) in one transaction.
 *
 * Phone sign-up: the attempt names a `phone_number` instead of an email address (the
 * instance must take phone numbers, `sign_in_methods.phone_code`, and sign-up must be
 * public), and the code goes by SMS (`phone_code`; SMS pumping protection applies).
 *
 * Instance settings: `sign_up_mode` public | restricted (only `allowlist` addresses or
 * domains, and invited addresses: server/invitations) | waitlist (only people invited from the waitlist, with their ticket); `username_required`,
 * `name_required`, `password_required`.
 */
type SignUpRow = typeof signUpAttempts.$inferSelect;

/** An attempt not completed within a day is abandoned. */
export const SIGN_UP_TTL_MS = 24 * 3_600_000;

export interface SignUpInput {
  /** One identifier: an email address, or a phone number (E.164). */
  email_address?: string;
  phone_number?: string;
  password?: string;
  username?: string;
  first_name?: string;
  last_name?: string;
  unsafe_metadata?: Record<string, unknown>;
  locale?: string;
  /**
   * A waitlist invitation's sign-up ticket (`tkt_…`, required in waitlist mode), or an
   * organization invitation's token (`oit_…`): the link proved the invited address, so the
   * sign-up completes at once with that address verified (strategy `ticket`).
   */
  ticket?: string;
}

function isAllowListed(allowlist: readonly string[], email: string): boolean {
  const address = email.toLowerCase();
  const domain = address.slice(address.lastIndexOf('@') + 1);
  return allowlist.some((raw) => {
    const entry = raw.trim().toLowerCase();
    if (entry.startsWith('@')) return entry.slice(1) === domain;
    return entry.includes('@') ? entry === address : entry === domain;
  });
}

/**
 * An address at a domain of an active SSO connection signs up through its IdP only (403
 * `sso_required`), whatever the mode: a password or social account made with a company
 * address would outlive the IdP's deprovisioning.
 * Restricted mode admits allow-listed addresses and domains, and addresses holding a pending
 * instance invitation. Waitlist mode, `creating` the sign-up: the waitlist invitation's ticket if
 * any (needed then); later steps need the invitation still standing.
 */
export async function checkSignUpMode(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instance: InstanceContext,
  email: string,
  creating?: { ticket?: string },
) {
  await assertPasswordAllowed(deps, instance.id, email);
  const mode = instance.settings.sign_up_mode;
  const ticket = creating ? (creating.ticket ?? null) : undefined;
  if (mode === 'waitlist' && (ticket === null || !(await waitlistAdmits(deps, instance.id, email, ticket)))) {
    throw new AppError('SIGN_UP_NOT_ALLOWED', {
      message:
        typeof ticket === 'string'
          ? 'This invitation is not valid for this email address, or no longer valid.'
          : 'Sign-up is closed: this application admits users from its waitlist only.',
      meta: { reason: 'waitlist', sign_up_mode: mode },
    });
  }
  if (
    mode === 'restricted' &&
    !isAllowListed(instance.settings.allowlist, email) &&
    !(await hasPendingInvitation(deps.db, instance.id, email, deps.clock.now()))
  ) {
    throw new AppError('SIGN_UP_NOT_ALLOWED', {
      message: 'Sign-up is restricted: this email address is not allowed to sign up.',
      meta: { reason: 'restricted', sign_up_mode: mode, param: 'email_address' },
    });
  }
}

export function signUpFields(instance: InstanceContext, identifier: 'email_address' | 'phone_number' = 'email_address') {
  const s = instance.settings;
  const required: string[] = [identifier];
  const optional: string[] = [];
  (s.password_required ? required : optional).push('password');
  (s.username_required ? required : optional).push('username');
  (s.name_required ? required : optional).push('first_name', 'last_name');
  return { required, optional };
}

async function assertEmailFree(db: Db, instanceId: string, email: string) {
  const [taken] = rowsOf(await runStatement(db, emailTakenSql(instanceId, email.toLowerCase())));
  if (taken) throw validationError('email_address', 'taken', 'That email address is already taken.');
}

async function assertPhoneFree(db: Db, instanceId: string, phone: string) {
  const [taken] = await db
    .select({ id: phoneNumbers.id })
    .from(phoneNumbers)
    .where(and(eq(phoneNumbers.instanceId, instanceId), eq(phoneNumbers.phoneNumber, phone)))
    .limit(1);
  if (taken) throw validationError('phone_number', 'taken', 'That phone number is already taken.');
}

/**
 * A phone sign-up needs the instance to take phone numbers (as phone sign-in does) and
 * public sign-up: the allow-list, invitations and the waitlist name email addresses.
 */
const phoneSignUpOpen = (s: Pick<InstanceSettings, 'sign_in_methods' | 'sign_up_mode'>) =>
  s.sign_in_methods.phone_code && s.sign_up_mode === 'public';

/** The identifiers a sign-up may name (the environment advertises them to sign-up forms). */
export const signUpIdentifiers = (s: Pick<InstanceSettings, 'sign_in_methods' | 'sign_up_mode'>): ('email_address' | 'phone_number')[] =>
  phoneSignUpOpen(s) ? ['email_address', 'phone_number'] : ['email_address'];

/** Why a phone sign-up is refused (see phoneSignUpOpen). */
function checkPhoneSignUp(instance: InstanceContext) {
  if (!instance.settings.sign_in_methods.phone_code) {
    throw validationError(
      'phone_number',
      'identifier_not_allowed',
      'This application does not take phone numbers: sign up with an email address.',
    );
  }
  const mode = instance.settings.sign_up_mode;
  if (mode !== 'public') {
    throw new AppError('SIGN_UP_NOT_ALLOWED', {
      message: 'Sign-up with a phone number is open only when anyone may sign up: sign up with an email address.',
      meta: { reason: mode === 'waitlist' ? 'waitlist' : 'restricted', sign_up_mode: mode, param: 'phone_number' },
    });
  }
}

/** The attempt's own checks of its identifier: the sign-up mode for an email address, phone rules for a number. */
const checkIdentifier = (
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instance: InstanceContext,
  a: Pick<SignUpRow, 'emailAddress' | 'phoneNumber'>,
) => (a.phoneNumber !== null ? checkPhoneSignUp(instance) : checkSignUpMode(deps, instance, a.emailAddress!));

async function assertUsernameFree(db: Db, instanceId: string, username: string | undefined) {
  if (!username) return;
  const [user] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.instanceId, instanceId), eq(users.usernameKey, username.toLowerCase())))
    .limit(1);
  if (user) throw validationError('username', 'taken', 'That username is already taken.');
}

/** `created`: the attempt was made by this request, so no code was sent for it yet (no read). */
export async function signUpView(
  deps: Pick<Deps, 'db' | 'clock'>,
  instance: InstanceContext,
  a: SignUpRow,
  opts: { created?: boolean } = {},
) {
  const byPhone = a.phoneNumber !== null;
  const code = opts.created ? null : await latestCode(deps, a.id, byPhone ? 'sign_up' : samePurposes('sign_up'));
  const emailStrategy = code?.purpose === 'sign_up_link' ? 'email_link' : 'email_code';
  const verified = (byPhone ? a.phoneVerifiedAt : a.emailVerifiedAt) !== null;
  const { required, optional } = signUpFields(instance, byPhone ? 'phone_number' : 'email_address');
  return {
    object: 'sign_up_attempt' as const,
    id: a.id,
    status: a.status,
    required_fields: required,
    optional_fields: optional,
    missing_fields: [] as string[],
    unverified_fields: verified ? [] : [byPhone ? 'phone_number' : 'email_address'],
    verifications: byPhone
      ? { email_address: null, phone_number: verificationView('phone_code', code, deps.clock.now(), verified) }
      : { email_address: verificationView(emailStrategy, code, deps.clock.now(), verified) },
    email_address: a.emailAddress,
    phone_number: a.phoneNumber,
    username: a.username,
    first_name: a.firstName,
    last_name: a.lastName,
    password_enabled: a.passwordDigest !== null,
    unsafe_metadata: a.unsafeMetadata,
    created_user_id: a.createdUserId,
    created_session_id: a.createdSessionId,
    abandon_at: a.abandonAt,
    created_at: a.createdAt,
    updated_at: a.updatedAt,
  };
}

/** Creates a sign-up attempt (and the client when there is none). Nothing is sent yet. */
export async function createSignUp(
  deps: Deps,
  instance: InstanceContext,
  input: SignUpInput,
  client: ClientRow | null,
  auditCtx: AuditContext,
): Promise<{ attempt: SignUpRow; client: ClientRow; newClientToken: string | null }> {
  const s = instance.settings;
  const phone = input.phone_number ?? null;
  if (phone !== null) {
    checkPhoneSignUp(instance);
    await assertCountryAllowed(deps, instance.id, phone, 'phone_number');
  } else {
    const waitlistTicket = isOrganizationInvitationToken(input.ticket) ? undefined : input.ticket;
    await checkSignUpMode(deps, instance, input.email_address!, { ticket: waitlistTicket });
  }
  // Only for the invited address, only through its own pending invitation's token.
  const invited =
    isOrganizationInvitationToken(input.ticket) &&
    phone === null &&
    (await pendingInvitationFor(deps, instance.id, input.ticket, input.email_address!));
  if (isOrganizationInvitationToken(input.ticket) && !invited) {
    throw validationError('ticket', 'invitation_invalid', 'This invitation is not for this email address, or is no longer pending.');
  }
  const required = (param: 'password' | 'username' | 'first_name' | 'last_name', missing: boolean) => () => {
    if (missing) throw validationError(param, 'required', `${param} is required.`);
  };
  // Every field's problem in one answer: the sign-up form shows them all at once.
  await allValidationProblems([
    required('password', s.password_required && input.password === undefined),
    required('username', s.username_required && input.username === undefined),
    required('first_name', s.name_required && !input.first_name),
    required('last_name', s.name_required && !input.last_name),
    () =>
      input.password !== undefined &&
      checkNewPassword(deps, instance, input.password, [input.email_address ?? phone ?? undefined, input.username]),
    () => assertMetadata('unsafe_metadata', input.unsafe_metadata ?? {}),
    () => (phone !== null ? assertPhoneFree(deps.db, instance.id, phone) : assertEmailFree(deps.db, instance.id, input.email_address!)),
    () => assertUsernameFree(deps.db, instance.id, input.username),
  ]);
  const passwordDigest = input.password === undefined ? null : await deps.passwords.hash(input.password);

  // The client (when there is none) and the attempt: one statement (db/together.ts).
  const fresh = client ? null : newClient(deps, instance.id);
  const c = client ?? fresh!.client;
  const newClientToken = fresh?.token ?? null;
  const now = deps.clock.now();
  const insert: Part = {
    writes: [fresh?.write ?? null],
    returning: {
      attempt: signUpInsertSql({
        id: newId('sua'),
        instanceId: instance.id,
        clientId: c.id,
        emailAddress: phone === null ? input.email_address! : null,
        phoneNumber: phone,
        username: input.username ?? null,
        firstName: input.first_name ?? null,
        lastName: input.last_name ?? null,
        passwordDigest,
        unsafeMetadata: input.unsafe_metadata ?? {},
        locale: input.locale ?? null,
        status: 'missing_requirements',
        abandonAt: now + SIGN_UP_TTL_MS,
        createdAt: now,
        updatedAt: now,
      }),
    },
  };
  const insertAttempt = async (db: Db) => rowFromJson(signUpAttempts, (await writeTogether(db, [insert]))[0]!.attempt)!;
  if (!invited) return { attempt: await insertAttempt(deps.db), client: c, newClientToken };
  return deps.db.transaction(async (tx) => {
    const attempt = await insertAttempt(tx);
    const done = await finishSignUp({ ...deps, db: tx }, instance, attempt, 'ticket', auditCtx, true);
    return { attempt: done.attempt, client: done.client, newClientToken: done.clientToken ?? newClientToken };
  });
}

/** The client's own live attempt; another client's, another instance's or an abandoned one is 404. */
export async function loadSignUp(deps: Pick<Deps, 'db' | 'clock'>, instance: InstanceContext, client: ClientRow | null, id: string) {
  if (!client) throw notFound('sign-up attempt');
  const [row] = await deps.db
    .select()
    .from(signUpAttempts)
    .where(and(eq(signUpAttempts.id, id), eq(signUpAttempts.instanceId, instance.id), eq(signUpAttempts.clientId, client.id)));
  if (!row || (row.status !== 'complete' && row.abandonAt <= deps.clock.now())) throw notFound('sign-up attempt');
  return row;
}

function assertOpen(a: SignUpRow) {
  if (a.status !== 'missing_requirements') {
    throw new AppError('CONFLICT', { message: `This sign-up attempt is ${a.status}.`, meta: { status: a.status } });
  }
}

/** A strategy that verifies the attempt's identifier (a code; for an address also a link, assertLinkAsked); another is refused. */
function assertStrategy(attempt: SignUpRow, strategy: SignUpStrategy | undefined) {
  const own = attempt.phoneNumber !== null ? 'phone_code' : 'email_code';
  if (strategy === 'email_link' && own === 'email_code') return;
  if (strategy !== undefined && strategy !== own) {
    throw validationError(
      'strategy',
      'invalid_value',
      `This sign-up verifies its ${own === 'phone_code' ? 'phone number with phone_code' : 'email address with email_code'}.`,
    );
  }
}

export type SignUpStrategy = 'email_code' | 'email_link' | 'phone_code';

/**
 * Emails (or, for a phone sign-up, texts) a verification code to the attempt's identifier
 * (reissue caps apply). `email_link` emails a link instead (`redirectUrl`, a page of the app,
 * required): opened, it completes this sign-up for the browser that made it (redeemSignUpLink).
 */
export async function prepareSignUpVerification(
  deps: Deps,
  instance: InstanceContext,
  attempt: SignUpRow,
  opts: {
    acceptLanguage?: string | null;
    strategy?: SignUpStrategy;
    redirectUrl?: string;
    ip?: string | null;
    userAgent?: string | null;
  } = {},
) {
  assertOpen(attempt);
  assertStrategy(attempt, opts.strategy);
  if (opts.strategy === 'email_link') assertLinkAsked(instance, opts.redirectUrl);
  // The mode may have tightened since the attempt was made.
  await checkIdentifier(deps, instance, attempt);
  if (attempt.phoneNumber !== null) {
    await sendSmsCode(deps, {
      instanceId: instance.id,
      attemptId: attempt.id,
      purpose: 'sign_up',
      phone: attempt.phoneNumber,
      userId: null,
      send: true,
      locale: attempt.locale,
      acceptLanguage: opts.acceptLanguage,
    });
    return attempt;
  }
  await sendCode(deps, {
    instanceId: instance.id,
    attemptId: attempt.id,
    purpose: 'sign_up',
    address: attempt.emailAddress!,
    to: attempt.emailAddress!,
    // In the language chosen at sign-up, else the browser's.
    locale: attempt.locale,
    acceptLanguage: opts.acceptLanguage,
    ...(opts.strategy === 'email_link' ? { purpose: 'sign_up_link' as const, ...emailLink(deps, instance, attempt.id, opts) } : {}),
  });
  return attempt;
}

/**
 * The verified attempt becomes a user (its address or number verified by `strategy`) with an
 * active session (or a pending one when the instance requires MFA) on the attempt's client,
 * made the client's active session; runs in the caller's transaction. `presentedClient`: the
 * request is the attempt's own client (its token rotates).
 */
async function finishSignUp(
  d: Deps,
  instance: InstanceContext,
  attempt: SignUpRow,
  strategy: SignUpStrategy | 'ticket',
  auditCtx: AuditContext,
  presentedClient: boolean,
): Promise<{ attempt: SignUpRow; client: ClientRow; clientToken: string | null }> {
  const byPhone = attempt.phoneNumber !== null;
  const user = await createUser(
    d,
    instance.id,
    {
      ...(byPhone ? { phone_number: [attempt.phoneNumber!] } : { email_address: [attempt.emailAddress!] }),
      username: attempt.username ?? undefined,
      first_name: attempt.firstName ?? undefined,
      last_name: attempt.lastName ?? undefined,
      ...(attempt.passwordDigest ? { password_digest: attempt.passwordDigest, password_hasher: 'argon2id' as const } : {}),
      unsafe_metadata: attempt.unsafeMetadata,
      ...(attempt.locale ? { locale: attempt.locale } : {}),
    },
    { verificationStrategy: strategy, audit: auditCtx },
  );
  if (!byPhone) {
    // An invited person's waitlist entry is completed by this sign-up.
    await completeWaitlistEntry(d, instance.id, attempt.emailAddress!, user.id);
    await acceptInvitations(d.db, instance.id, attempt.emailAddress!, d.clock.now());
  }
  const end = await completeSignIn(d, instance, {
    way: 'sign_up',
    userId: user.id,
    client: { id: attempt.clientId },
    presentedClient,
    auditCtx,
  });
  const now = d.clock.now();
  const [done] = await d.db
    .update(signUpAttempts)
    .set({
      status: 'complete',
      ...(byPhone ? { phoneVerifiedAt: now } : { emailVerifiedAt: now }),
      createdUserId: user.id,
      createdSessionId: end.sessionId,
      updatedAt: now,
    })
    .where(and(eq(signUpAttempts.id, attempt.id), eq(signUpAttempts.status, 'missing_requirements')))
    .returning();
  if (!done) throw new AppError('CONFLICT', { message: 'This sign-up attempt changed meanwhile.', meta: { status: 'complete' } });
  return { attempt: done, client: end.client, clientToken: end.clientToken };
}

/** Checks the code; on success creates the user and signs the client in (finishSignUp). */
export async function attemptSignUpVerification(
  deps: Deps,
  instance: InstanceContext,
  attempt: SignUpRow,
  code: string,
  auditCtx: AuditContext,
  strategy?: SignUpStrategy,
): Promise<{ attempt: SignUpRow; client: ClientRow; clientToken: string | null }> {
  assertOpen(attempt);
  if (strategy === 'email_link')
    throw validationError('strategy', 'invalid_value', 'An email link is verified by opening it, not by sending its code.');
  assertStrategy(attempt, strategy);
  await checkIdentifier(deps, instance, attempt);
  const byPhone = attempt.phoneNumber !== null;
  const outcome = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const check = await checkCode(d, { attemptId: attempt.id, purpose: 'sign_up', code });
    if (!check.ok) return check;
    return { ok: true as const, ...(await finishSignUp(d, instance, attempt, byPhone ? 'phone_code' : 'email_code', auditCtx, true)) };
  });
  if (!outcome.ok) throw outcome.error;
  return outcome;
}

/**
 * Redeems an emailed sign-up link (email-links.ts redeemLink: single use, 10 minutes, bound to
 * its attempt; `email_link_same_browser` refuses another browser): the sign-up completes for
 * the browser that made it, whose tab (polling the attempt) moves on; the browser that opened
 * the link gets nothing but the outcome, unless it is that browser.
 */
export function redeemSignUpLink(
  deps: Deps,
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
        .from(signUpAttempts)
        .where(and(eq(signUpAttempts.id, attemptId), eq(signUpAttempts.instanceId, instance.id)));
      if (!a || a.status !== 'missing_requirements' || a.abandonAt <= deps.clock.now() || a.emailAddress === null) return null;
      // The mode may have tightened since the attempt was made (a refusal is a failed link).
      await checkIdentifier(deps, instance, a);
      return { flow: a, sameBrowser: clickedBy === a.clientId };
    },
    redeem: async (d, a) => {
      const check = await checkCode(d, { attemptId: a.id, purpose: 'sign_up_link', code: secret });
      if (!check.ok) return check;
      const done = await finishSignUp(d, instance, a, 'email_link', auditCtx, clickedBy === a.clientId);
      return { ok: true, clientToken: done.clientToken, sessionId: done.attempt.createdSessionId };
    },
  });
}
