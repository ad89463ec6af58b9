import { and, count, eq, gt, inArray } from 'drizzle-orm';
import type { Deps } from '../deps';
import { emailAddresses, phoneNumbers, sessions, users } from '../db/schema';
import { newId } from '../db/ids';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { checkCode, verificationView } from '../verification/codes';
import { checkNewPassword, checkPassword } from './password-policy';
import { sendCode, sendSmsCode } from '../verification/send-code';
import { enrollUserByEmailDomain } from '../organizations/domains';
import type { Me } from './me';
import { assertIdentifiersFree, deleteUser, getUser, rethrowTaken } from './users';
import type { UserView } from './schemas';
import { revokeMyOtherSessions } from '../sessions/my-sessions';
import type { AuditContext } from '../http/actor';
import { audit } from '../audit/audit';
import { assertLinkAsked, emailLink, redeemLink, type LinkRedemption } from './email-links';

/**
 * What signed-in users change of their own account on the FAPI (the hosted profile): email
 * addresses and phone numbers (added unverified, verified by a code sent there, made
 * primary, removed), the
 * password (proved by the current one or a fresh emailed code) and the account itself.
 */

/** Email addresses, and phone numbers, one user may hold, verified or not. */
export const MAX_IDENTIFIERS = 10;

type D = Deps;
type Db = Deps['db'];

interface IdentifierRow {
  id: string;
  value: string;
  verified: boolean;
}

/** Where a kind of identifier lives and how a code reaches it; the rules below are the same for both. */
export interface IdentifierKind {
  kind: 'email_address' | 'phone_number';
  find(db: Db, instanceId: string, userId: string, id: string): Promise<IdentifierRow | undefined>;
  count(db: Db, userId: string): Promise<number>;
  insert(db: Db, row: { id: string; instanceId: string; userId: string; value: string; now: number }): Promise<void>;
  markVerified(db: Db, id: string, strategy: string, now: number): Promise<void>;
  remove(db: Db, id: string): Promise<void>;
  primaryOf(db: Db, userId: string): Promise<string | null>;
  strategy: 'email_code' | 'phone_code';
  send(deps: D, instanceId: string, userId: string, row: IdentifierRow, acceptLanguage: string | null): ReturnType<typeof sendCode>;
}

const EMAIL: IdentifierKind = {
  kind: 'email_address',
  async find(db, instanceId, userId, id) {
    const [r] = await db
      .select({ id: emailAddresses.id, value: emailAddresses.emailAddress, status: emailAddresses.verificationStatus })
      .from(emailAddresses)
      .where(and(eq(emailAddresses.id, id), eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.userId, userId)));
    return r && { id: r.id, value: r.value, verified: r.status === 'verified' };
  },
  async count(db, userId) {
    const [r] = await db.select({ n: count() }).from(emailAddresses).where(eq(emailAddresses.userId, userId));
    return Number(r?.n ?? 0);
  },
  async insert(db, r) {
    await db.insert(emailAddresses).values({
      id: r.id,
      instanceId: r.instanceId,
      userId: r.userId,
      emailAddress: r.value,
      emailKey: r.value.toLowerCase(),
      verificationStatus: 'unverified',
      verificationStrategy: null,
      createdAt: r.now,
      updatedAt: r.now,
    });
  },
  async markVerified(db, id, strategy, now) {
    await db
      .update(emailAddresses)
      .set({ verificationStatus: 'verified', verificationStrategy: strategy, updatedAt: now })
      .where(eq(emailAddresses.id, id));
  },
  async remove(db, id) {
    await db.delete(emailAddresses).where(eq(emailAddresses.id, id));
  },
  async primaryOf(db, userId) {
    const [u] = await db.select({ id: users.primaryEmailAddressId }).from(users).where(eq(users.id, userId));
    return u?.id ?? null;
  },
  strategy: 'email_code',
  send: (deps, instanceId, userId, row, acceptLanguage) =>
    sendCode(deps, {
      instanceId,
      attemptId: row.id,
      purpose: 'email_verification',
      address: row.value,
      to: row.value,
      userId,
      acceptLanguage,
    }),
};

const PHONE: IdentifierKind = {
  kind: 'phone_number',
  async find(db, instanceId, userId, id) {
    const [r] = await db
      .select({ id: phoneNumbers.id, value: phoneNumbers.phoneNumber, status: phoneNumbers.verificationStatus })
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.id, id), eq(phoneNumbers.instanceId, instanceId), eq(phoneNumbers.userId, userId)));
    return r && { id: r.id, value: r.value, verified: r.status === 'verified' };
  },
  async count(db, userId) {
    const [r] = await db.select({ n: count() }).from(phoneNumbers).where(eq(phoneNumbers.userId, userId));
    return Number(r?.n ?? 0);
  },
  async insert(db, r) {
    await db.insert(phoneNumbers).values({
      id: r.id,
      instanceId: r.instanceId,
      userId: r.userId,
      phoneNumber: r.value,
      verificationStatus: 'unverified',
      verificationStrategy: null,
      createdAt: r.now,
      updatedAt: r.now,
    });
  },
  async markVerified(db, id, strategy, now) {
    await db
      .update(phoneNumbers)
      .set({ verificationStatus: 'verified', verificationStrategy: strategy, updatedAt: now })
      .where(eq(phoneNumbers.id, id));
  },
  async remove(db, id) {
    await db.delete(phoneNumbers).where(eq(phoneNumbers.id, id));
  },
  async primaryOf(db, userId) {
    const [u] = await db.select({ id: users.primaryPhoneNumberId }).from(users).where(eq(users.id, userId));
    return u?.id ?? null;
  },
  strategy: 'phone_code',
  send: (deps, instanceId, userId, row, acceptLanguage) =>
    sendSmsCode(deps, { instanceId, attemptId: row.id, purpose: 'phone_verification', phone: row.value, userId, acceptLanguage }),
};

export const IDENTIFIER_KINDS = { email_address: EMAIL, phone_number: PHONE } as const;
export type IdentifierKindName = keyof typeof IDENTIFIER_KINDS;

export async function mine(kind: IdentifierKind, db: Db, instanceId: string, userId: string, id: string) {
  const row = await kind.find(db, instanceId, userId, id);
  if (!row) throw notFound(kind.kind);
  return row;
}

export async function emitUserUpdated(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const view = await getUser(deps, instanceId, userId);
  await emitEvent(deps, instanceId, 'user.updated', view);
  return view;
}

/** The identifier as the user resource shows it (email_addresses[] or phone_numbers[]). */
export function identifierView(view: UserView, kind: IdentifierKind, id: string) {
  const list: Array<{ id: string }> = kind.kind === 'email_address' ? view.email_addresses : view.phone_numbers;
  return list.find((e) => e.id === id)!;
}

/** Adds an unverified email address or phone number (422 `taken` when anyone holds it); verify it with a code next. */
export async function addMyIdentifier(deps: D, instanceId: string, userId: string, kindName: IdentifierKindName, value: string) {
  const kind = IDENTIFIER_KINDS[kindName];
  return deps.db
    .transaction(async (tx) => {
      if ((await kind.count(tx, userId)) >= MAX_IDENTIFIERS) {
        throw new AppError('CONFLICT', {
          message: `An account holds at most ${MAX_IDENTIFIERS} of these.`,
          meta: { reason: 'too_many_identifiers' },
        });
      }
      await assertIdentifiersFree(tx, instanceId, kind === EMAIL ? { emails: [value] } : { phones: [value] });
      const id = newId('idn');
      await kind.insert(tx, { id, instanceId, userId, value, now: deps.clock.now() });
      return identifierView(await emitUserUpdated({ db: tx, clock: deps.clock }, instanceId, userId), kind, id);
    })
    .catch(rethrowTaken);
}

/** What asks for an email link instead of a code: the app's page it lands on (required), and the asking request (named in the email). */
export interface LinkAsked {
  redirectUrl?: string;
  ip: string | null;
  userAgent: string | null;
}

/**
 * Sends a code to one of the user's unverified identifiers, by email or SMS (the reissue caps of
 * every code apply); for an email address, `link` emails a link instead (redeemAddressLink).
 */
export async function prepareMyVerification(
  deps: D,
  instance: InstanceContext,
  userId: string,
  kindName: IdentifierKindName,
  id: string,
  acceptLanguage: string | null,
  link?: LinkAsked,
) {
  const kind = IDENTIFIER_KINDS[kindName];
  const row = await mine(kind, deps.db, instance.id, userId, id);
  if (row.verified) throw new AppError('CONFLICT', { message: 'This is already verified.', meta: { reason: 'already_verified' } });
  if (link) assertLinkAsked(instance, link.redirectUrl);
  const code = link
    ? await sendCode(deps, {
        instanceId: instance.id,
        attemptId: row.id,
        purpose: 'email_verification_link',
        address: row.value,
        to: row.value,
        userId,
        acceptLanguage,
        ...emailLink(deps, instance, row.id, link),
      })
    : await kind.send(deps, instance.id, userId, row, acceptLanguage);
  return {
    ...identifierView(await getUser(deps, instance.id, userId), kind, id),
    verification: verificationView(link ? 'email_link' : kind.strategy, code, deps.clock.now())!,
  };
}

/** One of the signed-in user's identifiers, as the user resource shows it. */
export async function getMyIdentifier(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  userId: string,
  kindName: IdentifierKindName,
  id: string,
) {
  const kind = IDENTIFIER_KINDS[kindName];
  await mine(kind, deps.db, instanceId, userId, id);
  return identifierView(await getUser(deps, instanceId, userId), kind, id);
}

/** Whether a browser (client) holds a live session of the user: "the browser that asked" for a link of the account. */
async function holdsSessionOf(deps: Pick<Deps, 'db' | 'clock'>, clientId: string | null, userId: string) {
  if (!clientId) return false;
  const [s] = await deps.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(
      and(
        eq(sessions.clientId, clientId),
        eq(sessions.userId, userId),
        inArray(sessions.status, ['active', 'pending']),
        gt(sessions.expireAt, deps.clock.now()),
      ),
    )
    .limit(1);
  return s !== undefined;
}

/**
 * Opens an emailed link that verifies an address added to an account (email-links.ts
 * redeemLink: single use, 10 minutes, bound to that address): the address is verified (as by
 * its code: `user.updated`, organization domain enrollment, audited) wherever the link is
 * opened, and nobody is signed in. Under `email_link_same_browser` the opener must be a browser
 * signed in to the account.
 */
export function redeemAddressLink(
  deps: D,
  instance: InstanceContext,
  addressId: string,
  secret: string,
  clickedBy: string | null,
  auditCtx: AuditContext,
): Promise<LinkRedemption> {
  return redeemLink(deps, instance, {
    load: async () => {
      const [row] = await deps.db
        .select({
          id: emailAddresses.id,
          userId: emailAddresses.userId,
          value: emailAddresses.emailAddress,
          status: emailAddresses.verificationStatus,
        })
        .from(emailAddresses)
        .where(and(eq(emailAddresses.id, addressId), eq(emailAddresses.instanceId, instance.id)));
      if (!row || row.status === 'verified') return null;
      return { flow: row, sameBrowser: await holdsSessionOf(deps, clickedBy, row.userId) };
    },
    redeem: async (d, row) => {
      const check = await checkCode(d, { attemptId: row.id, purpose: 'email_verification_link', code: secret });
      if (!check.ok) return check;
      await EMAIL.markVerified(d.db, row.id, 'email_link', d.clock.now());
      await enrollUserByEmailDomain(d, instance.id, row.userId, [row.value]);
      await emitUserUpdated(d, instance.id, row.userId);
      const { actor, actorKind, ip, userAgent } = auditCtx;
      await audit(d, {
        instanceId: instance.id,
        actor,
        actorKind,
        action: 'user.email_address_verified',
        target: row.userId,
        ip,
        userAgent,
        details: { email_address_id: row.id, strategy: 'email_link' },
      });
      return { ok: true, clientToken: null, sessionId: null };
    },
  });
}

/** Verifies the identifier with its code; a verified email address then counts for organization domain enrollment. */
export async function attemptMyVerification(
  deps: D,
  instanceId: string,
  userId: string,
  kindName: IdentifierKindName,
  id: string,
  code: string,
) {
  const kind = IDENTIFIER_KINDS[kindName];
  const outcome = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const row = await mine(kind, tx, instanceId, userId, id);
    if (row.verified) return { ok: true as const };
    const check = await checkCode(d, { attemptId: row.id, purpose: kind === EMAIL ? 'email_verification' : 'phone_verification', code });
    if (!check.ok) return check;
    await kind.markVerified(tx, row.id, kind.strategy, deps.clock.now());
    if (kind === EMAIL) await enrollUserByEmailDomain(d, instanceId, userId, [row.value]);
    await emitUserUpdated(d, instanceId, userId);
    return { ok: true as const };
  });
  // A wrong code is committed (its try counts) before it is answered.
  if (!outcome.ok) throw outcome.error;
  return identifierView(await getUser(deps, instanceId, userId), kind, id);
}

/** Removes one of the user's identifiers; the primary one stays (make another primary first). */
export async function removeMyIdentifier(deps: D, instanceId: string, userId: string, kindName: IdentifierKindName, id: string) {
  const kind = IDENTIFIER_KINDS[kindName];
  return deps.db.transaction(async (tx) => {
    const row = await mine(kind, tx, instanceId, userId, id);
    if ((await kind.primaryOf(tx, userId)) === row.id) {
      throw new AppError('CONFLICT', {
        message: 'The primary one cannot be removed; make another one primary first.',
        meta: { reason: 'primary_identifier' },
      });
    }
    await kind.remove(tx, row.id);
    await emitUserUpdated({ db: tx, clock: deps.clock }, instanceId, userId);
    return { object: kindName, id: row.id, deleted: true as const };
  });
}

/** Only a verified identifier of the user's may become primary (it is where codes go). */
export async function assertVerifiedIdentifier(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  userId: string,
  kindName: IdentifierKindName,
  id: string,
) {
  const param = kindName === 'email_address' ? 'primary_email_address_id' : 'primary_phone_number_id';
  const row = await IDENTIFIER_KINDS[kindName].find(deps.db, instanceId, userId, id);
  if (!row) throw validationError(param, 'not_found', `${param} is not one of yours.`);
  if (!row.verified) throw validationError(param, 'unverified', 'Verify it before making it primary.');
}

/** Emails a code to the primary address: proof for a password change without the current password. */
export async function prepareReauthentication(deps: D, instance: InstanceContext, userId: string, acceptLanguage: string | null) {
  const user = await getUser(deps, instance.id, userId);
  const primary = user.email_addresses.find((e) => e.id === user.primary_email_address_id);
  if (!primary) {
    throw new AppError('CONFLICT', {
      message: 'This account has no primary email address to send a code to.',
      meta: { reason: 'no_primary_email' },
    });
  }
  const code = await sendCode(deps, {
    instanceId: instance.id,
    attemptId: userId,
    purpose: 'reauthentication',
    address: primary.email_address,
    to: primary.email_address,
    userId,
    acceptLanguage,
  });
  return verificationView('email_code', code, deps.clock.now())!;
}

export interface PasswordChange {
  current_password?: string;
  code?: string;
  new_password: string;
  sign_out_of_other_sessions: boolean;
}

/**
 * Sets a new password (policy and breach check apply) once the user proved it is them: the
 * current password, or a code from prepareReauthentication (the only way for an account
 * without a password). Other sessions end when asked. Audited here, in the write's
 * transaction: the router's would hold a database connection through the hashing.
 */
export async function changeMyPassword(deps: D, instance: InstanceContext, me: Me, input: PasswordChange, auditCtx: AuditContext) {
  const [stored] = await deps.db
    .select({ digest: users.passwordDigest, hasher: users.passwordHasher })
    .from(users)
    .where(eq(users.id, me.userId));
  if (input.current_password !== undefined) {
    const known = stored?.digest && stored.hasher ? { digest: stored.digest, hasher: stored.hasher } : null;
    if (!(await checkPassword(deps, input.current_password, known))) {
      throw validationError('current_password', 'incorrect_password', 'The current password is incorrect.');
    }
  } else if (input.code !== undefined) {
    const check = await deps.db.transaction((tx) =>
      checkCode({ ...deps, db: tx }, { attemptId: me.userId, purpose: 'reauthentication', code: input.code! }),
    );
    if (!check.ok) throw check.error;
  } else {
    throw validationError(
      stored?.digest ? 'current_password' : 'code',
      'required',
      stored?.digest ? 'Send current_password, or a code.' : 'Send the code emailed to your primary address.',
    );
  }
  const user = await getUser(deps, instance.id, me.userId);
  await checkNewPassword(deps, instance, input.new_password, [...user.email_addresses.map((e) => e.email_address), user.username]);
  const digest = await deps.passwords.hash(input.new_password);
  const view = await deps.db.transaction(async (tx) => {
    await tx
      .update(users)
      .set({ passwordDigest: digest, passwordHasher: 'argon2id', updatedAt: deps.clock.now() })
      .where(eq(users.id, me.userId));
    const { actor, actorKind, ip, userAgent } = auditCtx;
    await audit(
      { db: tx, clock: deps.clock },
      { instanceId: instance.id, actor, actorKind, action: 'user.password_changed', target: me.userId, ip, userAgent },
    );
    return emitUserUpdated({ db: tx, clock: deps.clock }, instance.id, me.userId);
  });
  if (input.sign_out_of_other_sessions) await revokeMyOtherSessions(deps, instance.id, me, auditCtx);
  return view;
}

/** Deletes the signed-in user's account, when the instance lets users do so. */
export async function deleteMyAccount(deps: D, instance: InstanceContext, me: Me) {
  if (!instance.settings.delete_self_enabled) {
    throw new AppError('FORBIDDEN', {
      message: 'This application does not let users delete their own account.',
      meta: { reason: 'delete_self_disabled' },
    });
  }
  return deleteUser(deps, instance.id, me.userId);
}
