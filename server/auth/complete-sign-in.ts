import { and, eq } from 'drizzle-orm';
import { ssoRequired } from '../organizations/sso-domains';
import type { Deps } from '../deps';
import { audit } from '../audit/audit';
import { newId } from '../db/ids';
import { emailAddresses, signInAttempts, type LtiSessionContext, type sessions } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { AppError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { assertUserRowNotLocked, clearFailedAttemptsWrite } from '../protection/lockout';
import { rememberOriginWrite, riskOf, sendNewDeviceEmail, stepUpAddress, type SignInOrigin } from '../protection/risk';
import { activeSessionPart, createClient, type ClientRow } from '../sessions/clients';
import { newSessionParts, type SessionActor } from '../sessions/sessions';
import { rowFromJson, writeTogether, type Part } from '../db/together';
import { rowsOf } from '../db/rows';
import { activeSsoDomains } from '../organizations/sso-domains';
import { emailDomain } from '../organizations/domains';
import { insertAttemptSql, lastSignInWrite, moveAttemptSql, userForSignInSql, type SignInIdentifierKind } from './statements';
import { runStatement, type Bound } from '../db/prepared';

/**
 * The one ending of every way into a session. Each way (a password, a code, a link, a
 * ticket, a social provider, an SSO connection, an LTI launch, a sign-up) proves who the user
 * is in its own way, then calls `completeSignIn`, which applies every rule in one place:
 *
 * - a banned user never signs in; an operator's lock (no end) stops every way but an
 *   operator's own impersonation;
 * - a timed lockout (failed guesses) stops only the ways that guess a secret (the password):
 *   codes, links and the password reset stay open, so an attacker's wrong guesses never
 *   cut the owner off what proves they hold the mailbox or phone;
 * - a user with a verified address at a domain of an active SSO connection signs in through
 *   their IdP only: password, code, link, reset, passkey, social and sign-up ways answer `sso_required`,
 *   whatever identifier was typed;
 * - the user's second factor is asked on every way but impersonation (and SSO through a
 *   connection whose IdP is declared to enforce MFA, and a passkey, which is two factors by
 *   itself: a device held and its user verification): the session starts `pending` and the
 *   sign-in attempt `needs_second_factor`; risk-based step-up applies to passwords. The
 *   second factor is TOTP; under `mfa_required` a passkey counts as one too (then a user
 *   with only a passkey is asked for it after a password or a code);
 * - under `mfa_required`, a user without a second factor gets a `pending` session with the
 *   `setup_mfa` task;
 * - the client's token is rotated when the request that completes the sign-in is the
 *   client's own (session fixation): the old token stops naming the client.
 *
 * The table of ways (`WAYS`) is what a new way in adds a row to; complete-sign-in.test.ts runs
 * each rule against each row.
 */
type D = Deps;
type SignInRow = typeof signInAttempts.$inferSelect;
type SessionRow = typeof sessions.$inferSelect;

export type WayKind =
  'password' | 'code' | 'link' | 'reset' | 'ticket' | 'impersonation' | 'social' | 'sso' | 'lti' | 'sign_up' | 'passkey';

export interface WayRules {
  /** A timed lockout (failed guesses on the account) stops it. */
  stoppedByLockout: boolean;
  /** An operator's lock (no end) stops it. */
  stoppedByOperatorLock: boolean;
  /** Refused for a user who must sign in through SSO. */
  refusedWhenSsoOnly: boolean;
  /** The user's second factor is asked (an SSO connection may waive it: `idp_enforces_mfa`). */
  asksSecondFactor: boolean;
  /** Risk-based MFA may step it up. */
  riskStepUp: boolean;
  /** `mfa_required` applies (setup_mfa task). */
  mfaRequired: boolean;
}

const guessed: WayRules = {
  stoppedByLockout: true,
  stoppedByOperatorLock: true,
  refusedWhenSsoOnly: true,
  asksSecondFactor: true,
  riskStepUp: true,
  mfaRequired: true,
};
const proved: WayRules = { ...guessed, stoppedByLockout: false, riskStepUp: false };
const federated: WayRules = { ...proved, refusedWhenSsoOnly: false };

export const WAYS: Record<WayKind, WayRules> = {
  password: guessed,
  code: proved,
  link: proved,
  reset: proved,
  /** A sign-in token: the app's backend vouches for the first factor only. */
  ticket: federated,
  /**
   * A social provider proves a mailbox only as the provider saw it: an account made at the
   * provider with a company address outlives the IdP's deprovisioning, so a user who must sign
   * in through SSO is refused here too.
   */
  social: { ...federated, refusedWhenSsoOnly: true },
  sso: federated,
  lti: federated,
  /**
   * A passkey with user verification (always required) is possession and the device's PIN or
   * biometric at once: no second factor is asked after it. Nothing is guessed, so a timed
   * lockout does not stop it; bans, an operator's lock and SSO-only users are refused.
   */
  passkey: { ...proved, asksSecondFactor: false },
  /**
   * A new user has no second factor yet; `mfa_required` still applies. An address at an SSO
   * domain is refused when the sign-up is made (checkSignUpMode), and again here.
   */
  sign_up: { ...federated, refusedWhenSsoOnly: true },
  /** An operator acting as the user: audited, limited within the session (users/impersonation), never asks the user's factors. */
  impersonation: {
    stoppedByLockout: false,
    stoppedByOperatorLock: false,
    refusedWhenSsoOnly: false,
    asksSecondFactor: false,
    riskStepUp: false,
    mfaRequired: false,
  },
};

type WayIn =
  | 'password'
  | 'email_code'
  | 'phone_code'
  | 'email_link'
  | 'reset_password_email_code'
  | 'ticket'
  | 'impersonation'
  | `oauth_${string}`
  | 'enterprise_sso'
  | 'lti'
  | 'sign_up'
  | 'passkey';

function wayKindOf(way: WayIn): WayKind {
  if (way.startsWith('oauth_')) return 'social';
  switch (way) {
    case 'email_code':
    case 'phone_code':
      return 'code';
    case 'email_link':
      return 'link';
    case 'reset_password_email_code':
      return 'reset';
    case 'enterprise_sso':
      return 'sso';
    default:
      return way as WayKind;
  }
}

export interface SignInEnding {
  way: WayIn;
  userId: string;
  /** The sign-in attempt this completes; when the way has none and a second factor is due, one is recorded. */
  attempt?: SignInRow | null;
  /** The client the session goes on; null makes a new one. */
  client: Pick<ClientRow, 'id'> | null;
  /** The request that completes the sign-in presented this client's token: it is rotated. */
  presentedClient: boolean;
  /** Impersonation: who acts. */
  actor?: SessionActor | null;
  /** SSO: the connection declares that its IdP enforces MFA. */
  idpEnforcesMfa?: boolean;
  /** What the way adds to the session (an LTI launch's context and course organization). */
  lti?: LtiSessionContext | null;
  lastActiveOrganizationId?: string | null;
  auditCtx: AuditContext;
}

export interface SignInEnd {
  /** The attempt as it now stands (complete or needs_second_factor), or null when the way had none and needs none. */
  attempt: SignInRow | null;
  sessionId: string;
  status: 'active' | 'pending';
  /** The session as created. */
  session: SessionRow;
  client: ClientRow;
  /** A token to hand to the browser or app: the new client's, or the rotated one. Null: keep what it has. */
  clientToken: string | null;
}

const credentialsInvalid = () => new AppError('CREDENTIALS_INVALID', { meta: { param: 'password' } });

/** The user as every rule needs them, in one read. */
async function userForSignIn(d: D, instanceId: string, userId: string) {
  const [row] = rowsOf<{
    id: string;
    banned: boolean;
    locked: boolean;
    locked_until: number | string | null;
    sessions_version: number;
    primary_email_address_id: string | null;
    second_factor: boolean;
    passkey: boolean;
  }>(await runStatement(d.db, userForSignInSql(instanceId, userId)));
  if (!row) return undefined;
  return {
    id: row.id,
    banned: row.banned,
    locked: row.locked,
    lockedUntil: row.locked_until === null ? null : Number(row.locked_until),
    sessionsVersion: Number(row.sessions_version),
    primaryEmailAddressId: row.primary_email_address_id,
    secondFactor: row.second_factor,
    passkey: row.passkey,
  };
}

/** Whether the user must sign in through SSO: one of their verified addresses is at a domain of an active connection. */
async function mustUseSso(d: Pick<D, 'db' | 'clock' | 'caches'>, instanceId: string, userId: string): Promise<boolean> {
  // The domains come from the per-node cache: an instance without SSO reads no addresses.
  const domains = await activeSsoDomains(d, instanceId);
  if (domains.size === 0) return false;
  const rows = await d.db
    .select({ email: emailAddresses.emailAddress })
    .from(emailAddresses)
    .where(
      and(eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.userId, userId), eq(emailAddresses.verificationStatus, 'verified')),
    );
  return rows.some((r) => domains.has(emailDomain(r.email)));
}

/** Refuses the sign-in when a rule of the way forbids it for this user (ban, locks, SSO only). */
async function refuseIfBarred(
  d: D,
  instance: InstanceContext,
  rules: WayRules,
  user: NonNullable<Awaited<ReturnType<typeof userForSignIn>>>,
) {
  if (user.banned) throw new AppError('USER_BANNED', { message: 'This user is banned and cannot sign in.' });
  if (rules.stoppedByOperatorLock) assertUserRowNotLocked(d, instance, user, { timed: rules.stoppedByLockout });
  if (rules.refusedWhenSsoOnly && (await mustUseSso(d, instance.id, user.id))) throw ssoRequired('This account');
}

/**
 * Ends a sign-in: checks every rule of the way, creates the session (pending when a second
 * factor or MFA enrollment is due) on the client, rotates a presented client token, moves
 * the attempt on and records the sign-in. Runs in the caller's transaction.
 */
export async function completeSignIn(d: D, instance: InstanceContext, input: SignInEnding): Promise<SignInEnd> {
  const rules = WAYS[wayKindOf(input.way)];
  const user = await userForSignIn(d, instance.id, input.userId);
  if (!user) throw credentialsInvalid();
  await refuseIfBarred(d, instance, rules, user);

  let clientId = input.client?.id ?? null;
  let newClientToken: string | null = null;
  if (!clientId)
    ({
      client: { id: clientId },
      token: newClientToken,
    } = await createClient(d, instance.id));
  const origin: SignInOrigin = { clientId, ip: input.auditCtx.ip, userAgent: input.auditCtx.userAgent };
  // TOTP is asked whenever the user has it; a passkey where the instance asks for a second factor.
  const passkeyFactor = instance.settings.sign_in_methods.passkey && user.passkey;
  const enrolled = user.secondFactor || passkeyFactor;
  const secondFactor =
    rules.asksSecondFactor && !input.idpEnforcesMfa && (user.secondFactor || (instance.settings.mfa_required && passkeyFactor));
  const risk = rules.riskStepUp ? await riskOf(d, instance, user.id, origin) : [];
  const stepUpTo = risk.length > 0 && !secondFactor ? await stepUpAddress(d, user.id) : null;
  const needsSecondFactor = secondFactor || stepUpTo !== null;
  const status = needsSecondFactor || (rules.mfaRequired && instance.settings.mfa_required && !enrolled) ? 'pending' : 'active';

  // The session, the client, the attempt and the sign-in's records: one statement (db/together.ts).
  const created = newSessionParts(
    d,
    instance,
    {
      userId: user.id,
      clientId,
      status,
      actor: input.actor ?? null,
      activity: input.auditCtx,
      lti: input.lti,
      lastActiveOrganizationId: input.lastActiveOrganizationId,
      signInWay: input.way,
    },
    input.auditCtx,
  );
  const session = created.session;
  const rotate = input.presentedClient && newClientToken === null;
  const riskReasons = risk.length > 0 ? risk : null;
  const active = activeSessionPart(d, clientId, session.id, { rotate });
  const fields = {
    status: needsSecondFactor ? ('needs_second_factor' as const) : ('complete' as const),
    userId: user.id,
    firstFactorStrategy: input.way,
    sessionId: session.id,
    riskReasons,
    stepUpAddress: stepUpTo,
    updatedAt: d.clock.now(),
  };
  const moved = input.attempt ? movedAttemptPart(input.attempt, fields) : null;
  const completed =
    needsSecondFactor || input.way === 'impersonation' ? null : signInCompletedPart(d, instance, { userId: user.id, riskReasons }, origin);
  const answers = await writeTogether(d.db, [
    ...created.parts,
    active.part,
    ...(moved ? [moved.part] : []),
    ...(completed ? [completed] : []),
  ]);
  const { client, token: rotatedToken } = active.result(answers[created.parts.length]!);
  // A way without an attempt records one when a second factor is due.
  const attempt = moved
    ? moved.result(answers[created.parts.length + 1]!)
    : needsSecondFactor
      ? await recordSignInAttempt(d, { instanceId: instance.id, clientId, identifier: await identifierOf(d, user), ...fields })
      : null;
  if (needsSecondFactor && risk.length > 0) {
    d.metrics.protection.inc({ instance: instance.id, rule: 'step_up' });
    await audit(d, {
      instanceId: instance.id,
      actor: 'system:risk_based_mfa',
      action: 'sign_in.step_up',
      target: user.id,
      ip: input.auditCtx.ip,
      userAgent: input.auditCtx.userAgent,
      details: {
        sign_in_attempt_id: attempt?.id ?? null,
        reasons: risk,
        second_factor: stepUpTo ? 'email_code' : 'totp',
        session_id: session.id,
      },
    });
  }
  return { attempt, sessionId: session.id, status, session, client, clientToken: newClientToken ?? rotatedToken };
}

/** The attempt moves on (complete or needs_second_factor); one that changed meanwhile is CONFLICT (and the transaction rolls back). */
function movedAttemptPart(
  a: SignInRow,
  fields: Pick<SignInRow, 'status' | 'userId' | 'firstFactorStrategy' | 'sessionId' | 'riskReasons' | 'stepUpAddress' | 'updatedAt'>,
) {
  const part: Part = {
    returning: {
      attempt: moveAttemptSql(a, fields),
    },
  };
  const result = (answers: Record<string, unknown>) => {
    const next = rowFromJson(signInAttempts, answers.attempt);
    if (!next) throw new AppError('CONFLICT', { message: 'This sign-in attempt changed meanwhile; start again.' });
    return next;
  };
  return { part, result };
}

export const SIGN_IN_TTL_MS = 24 * 3_600_000;

/** A new sign-in attempt of a client (waiting for its first factor unless told otherwise), alive for SIGN_IN_TTL_MS. */
export async function recordSignInAttempt(
  d: Pick<D, 'db' | 'clock'>,
  row: Pick<SignInRow, 'instanceId' | 'clientId' | 'identifier' | 'userId'> & Partial<SignInRow>,
): Promise<SignInRow> {
  const [recorded] = await d.db
    .insert(signInAttempts)
    .values({ ...attemptDefaults(d), ...row })
    .returning();
  return recorded!;
}

const attemptDefaults = (d: Pick<D, 'clock'>) => {
  const now = d.clock.now();
  return { id: newId('sia'), status: 'needs_first_factor' as const, abandonAt: now + SIGN_IN_TTL_MS, createdAt: now, updatedAt: now };
};

/**
 * recordSignInAttempt's write for an attempt waiting for its first factor, to send with
 * others (db/together.ts), `returning *`: the user may be a subquery of the same statement.
 */
export function newAttemptWrite(
  d: Pick<D, 'clock'>,
  row: Pick<SignInRow, 'instanceId' | 'clientId' | 'identifier'> & { kind: SignInIdentifierKind; key: string },
): Bound {
  const a = attemptDefaults(d);
  return insertAttemptSql(a, row);
}

async function identifierOf(d: D, user: { id: string; primaryEmailAddressId: string | null }) {
  if (!user.primaryEmailAddressId) return user.id;
  const [row] = await d.db
    .select({ email: emailAddresses.emailAddress })
    .from(emailAddresses)
    .where(eq(emailAddresses.id, user.primaryEmailAddressId));
  return row?.email ?? user.id;
}

/**
 * A sign-in is complete (its session active or awaiting only MFA enrollment): the user's
 * last sign-in, a fresh lockout count, the client and network remembered, and the
 * new-device notice when risk-based MFA found it new.
 */
export async function signInCompleted(
  d: D,
  instance: InstanceContext,
  a: { userId: string; riskReasons: string[] | null },
  origin: SignInOrigin,
) {
  await writeTogether(d.db, [signInCompletedPart(d, instance, a, origin)]);
}

/** signInCompleted as a part of a statement of several writes (db/together.ts). */
function signInCompletedPart(
  d: D,
  instance: InstanceContext,
  a: { userId: string; riskReasons: string[] | null },
  origin: SignInOrigin,
): Part {
  return {
    writes: [
      lastSignInWrite(a.userId, d.clock.now()),
      clearFailedAttemptsWrite(instance, a.userId),
      rememberOriginWrite(d, instance, a.userId, origin),
    ],
    after: async (db) => {
      if (a.riskReasons?.length) await sendNewDeviceEmail({ ...d, db }, instance, a.userId, origin);
    },
  };
}
