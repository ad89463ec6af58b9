import { and, count, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { emailAddresses, users } from '../db/schema';
import { newId } from '../db/ids';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import type { InstanceContext } from '../instances/instances';
import { checkCode, verificationView } from '../auth/codes';
import { checkNewPassword, checkPassword } from '../auth/password-policy';
import { sendCode } from '../auth/send-code';
import { enrollUserByEmailDomain } from '../organizations/domains';
import type { Me } from './me';
import { assertIdentifiersFree, deleteUser, getUser, rethrowTaken } from './users';
import { revokeMyOtherSessions } from '../sessions/me-sessions';
import type { AuditContext } from '../http/actor';
import { audit } from '../audit/audit';

/**
 * What signed-in users change of their own account on the FAPI (the hosted profile): email
 * addresses (added unverified, verified by an emailed code, made primary, removed), the
 * password (proved by the current one or a fresh emailed code) and the account itself.
 */

/** Addresses one user may hold, verified or not. */
export const MAX_EMAIL_ADDRESSES = 10;

type D = Deps;

const impersonationRefused = (what: string) =>
  new AppError('FORBIDDEN', { message: `An impersonation session cannot ${what}.`, meta: { reason: 'impersonation' } });

/** Refuses what only the person themselves may do (an operator impersonating them may not). */
export function refuseImpersonated(me: Me, what: string) {
  if (me.actor) throw impersonationRefused(what);
}

async function myEmailAddress(deps: Pick<Deps, 'db'>, instanceId: string, userId: string, id: string) {
  const [row] = await deps.db
    .select()
    .from(emailAddresses)
    .where(and(eq(emailAddresses.id, id), eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.userId, userId)));
  if (!row) throw notFound('email_address');
  return row;
}

async function emitUserUpdated(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, userId: string) {
  const view = await getUser(deps, instanceId, userId);
  await emitEvent(deps, instanceId, 'user.updated', view);
  return view;
}

const emailView = (view: Awaited<ReturnType<typeof getUser>>, id: string) => view.email_addresses.find((e) => e.id === id)!;

/** Adds an unverified address (422 `taken` when anyone holds it); verify it with a code next. */
export async function addMyEmailAddress(deps: D, instanceId: string, userId: string, address: string) {
  return deps.db
    .transaction(async (tx) => {
      const [held] = await tx.select({ n: count() }).from(emailAddresses).where(eq(emailAddresses.userId, userId));
      if (Number(held?.n ?? 0) >= MAX_EMAIL_ADDRESSES) {
        throw new AppError('CONFLICT', { message: `An account holds at most ${MAX_EMAIL_ADDRESSES} email addresses.`, meta: { reason: 'too_many_email_addresses' } });
      }
      await assertIdentifiersFree(tx, instanceId, { emails: [address] });
      const now = deps.clock.now();
      const id = newId('idn');
      await tx.insert(emailAddresses).values({
        id,
        instanceId,
        userId,
        emailAddress: address,
        emailKey: address.toLowerCase(),
        verificationStatus: 'unverified',
        verificationStrategy: null,
        createdAt: now,
        updatedAt: now,
      });
      return emailView(await emitUserUpdated({ db: tx, clock: deps.clock }, instanceId, userId), id);
    })
    .catch(rethrowTaken);
}

/** Emails a code to one of the user's unverified addresses (the reissue caps of every code apply). */
export async function prepareMyEmailVerification(deps: D, instance: InstanceContext, userId: string, id: string, acceptLanguage: string | null) {
  const row = await myEmailAddress(deps, instance.id, userId, id);
  if (row.verificationStatus === 'verified') {
    throw new AppError('CONFLICT', { message: 'This address is already verified.', meta: { reason: 'already_verified' } });
  }
  const code = await sendCode(deps, {
    instanceId: instance.id,
    attemptId: row.id,
    purpose: 'email_verification',
    address: row.emailAddress,
    to: row.emailAddress,
    userId,
    acceptLanguage,
  });
  return { ...emailView(await getUser(deps, instance.id, userId), id), verification: verificationView('email_code', code, deps.clock.now())! };
}

/** Verifies the address with its code; it then counts for organization domain enrollment. */
export async function attemptMyEmailVerification(deps: D, instanceId: string, userId: string, id: string, code: string) {
  const outcome = await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const row = await myEmailAddress(d, instanceId, userId, id);
    if (row.verificationStatus === 'verified') return { ok: true as const };
    const check = await checkCode(d, { attemptId: row.id, purpose: 'email_verification', code });
    if (!check.ok) return check;
    await tx
      .update(emailAddresses)
      .set({ verificationStatus: 'verified', verificationStrategy: 'email_code', updatedAt: deps.clock.now() })
      .where(eq(emailAddresses.id, row.id));
    await enrollUserByEmailDomain(d, instanceId, userId, [row.emailAddress]);
    await emitUserUpdated(d, instanceId, userId);
    return { ok: true as const };
  });
  // A wrong code is committed (its try counts) before it is answered.
  if (!outcome.ok) throw outcome.error;
  return emailView(await getUser(deps, instanceId, userId), id);
}

/** Removes one of the user's addresses; the primary one stays (make another primary first). */
export async function removeMyEmailAddress(deps: D, instanceId: string, userId: string, id: string) {
  return deps.db.transaction(async (tx) => {
    const row = await myEmailAddress({ db: tx }, instanceId, userId, id);
    const [user] = await tx.select({ primary: users.primaryEmailAddressId }).from(users).where(eq(users.id, userId));
    if (user?.primary === row.id) {
      throw new AppError('CONFLICT', { message: 'The primary email address cannot be removed; make another one primary first.', meta: { reason: 'primary_identifier' } });
    }
    await tx.delete(emailAddresses).where(eq(emailAddresses.id, row.id));
    await emitUserUpdated({ db: tx, clock: deps.clock }, instanceId, userId);
    return { object: 'email_address' as const, id: row.id, deleted: true as const };
  });
}

/** Only a verified address of the user's may become primary (it is where codes go). */
export async function assertVerifiedEmail(deps: Pick<Deps, 'db'>, instanceId: string, userId: string, id: string) {
  const [row] = await deps.db
    .select({ status: emailAddresses.verificationStatus })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.id, id), eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.userId, userId)));
  if (!row) throw validationError('primary_email_address_id', 'not_found', 'primary_email_address_id is not one of your email addresses.');
  if (row.status !== 'verified') throw validationError('primary_email_address_id', 'unverified', 'Verify this address before making it primary.');
}

/** Emails a code to the primary address: proof for a password change without the current password. */
export async function prepareReauthentication(deps: D, instance: InstanceContext, userId: string, acceptLanguage: string | null) {
  const user = await getUser(deps, instance.id, userId);
  const primary = user.email_addresses.find((e) => e.id === user.primary_email_address_id);
  if (!primary) {
    throw new AppError('CONFLICT', { message: 'This account has no primary email address to send a code to.', meta: { reason: 'no_primary_email' } });
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
  const [stored] = await deps.db.select({ digest: users.passwordDigest, hasher: users.passwordHasher }).from(users).where(eq(users.id, me.userId));
  if (input.current_password !== undefined) {
    const known = stored?.digest && stored.hasher ? { digest: stored.digest, hasher: stored.hasher } : null;
    if (!(await checkPassword(deps, input.current_password, known))) {
      throw validationError('current_password', 'incorrect_password', 'The current password is incorrect.');
    }
  } else if (input.code !== undefined) {
    const check = await deps.db.transaction((tx) => checkCode({ ...deps, db: tx }, { attemptId: me.userId, purpose: 'reauthentication', code: input.code! }));
    if (!check.ok) throw check.error;
  } else {
    throw validationError(stored?.digest ? 'current_password' : 'code', 'required', stored?.digest ? 'Send current_password, or a code.' : 'Send the code emailed to your primary address.');
  }
  const user = await getUser(deps, instance.id, me.userId);
  await checkNewPassword(deps, instance, input.new_password, [...user.email_addresses.map((e) => e.email_address), user.username]);
  const digest = await deps.passwords.hash(input.new_password);
  const view = await deps.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordDigest: digest, passwordHasher: 'argon2id', updatedAt: deps.clock.now() }).where(eq(users.id, me.userId));
    const { actor, actorKind, ip, userAgent } = auditCtx;
    await audit({ db: tx, clock: deps.clock }, { instanceId: instance.id, actor, actorKind, action: 'user.password_changed', target: me.userId, ip, userAgent });
    return emitUserUpdated({ db: tx, clock: deps.clock }, instance.id, me.userId);
  });
  if (input.sign_out_of_other_sessions) await revokeMyOtherSessions(deps, instance.id, me, auditCtx);
  return view;
}

/** Deletes the signed-in user's account, when the instance lets users do so. */
export async function deleteMyAccount(deps: D, instance: InstanceContext, me: Me) {
  if (!instance.settings.delete_self_enabled) {
    throw new AppError('FORBIDDEN', { message: 'This application does not let users delete their own account.', meta: { reason: 'delete_self_disabled' } });
  }
  refuseImpersonated(me, 'delete the account');
  return deleteUser(deps, instance.id, me.userId);
}
