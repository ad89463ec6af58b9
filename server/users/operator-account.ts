import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { users } from '../db/schema';
import { newId } from '../db/ids';
import { AppError } from '../http/errors';
import type { AuditContext } from '../http/actor';
import { enrollUserByEmailDomain } from '../organizations/domains';
import { revokeUserSessions } from '../sessions/sessions';
import {
  emitUserUpdated,
  identifierView,
  IDENTIFIER_KINDS,
  MAX_IDENTIFIERS,
  mine,
  removeMyIdentifier,
  type IdentifierKindName,
} from './my-account';
import { assertIdentifiersFree, getUser, rethrowTaken, updateUser } from './users';

/**
 * What an operator changes of a user's account from the console (dashboard API): email
 * addresses and phone numbers (added verified or not, verified by the operator's word,
 * removed) and the password. Making one primary is the user PATCH (primary_*_id).
 * Identifiers the operator verifies carry the strategy `admin`, as the BAPI's do.
 */

type D = Pick<Deps, 'db' | 'clock'>;
const PRIMARY = { email_address: users.primaryEmailAddressId, phone_number: users.primaryPhoneNumberId } as const;

/** A verified identifier becomes primary when the user has none of its kind (so codes have somewhere to go). */
async function primaryWhenNone(d: D, instanceId: string, userId: string, kindName: IdentifierKindName, id: string) {
  const column = PRIMARY[kindName];
  const [row] = await d.db
    .select({ primary: column })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  if (row && row.primary === null) {
    await d.db
      .update(users)
      .set(kindName === 'email_address' ? { primaryEmailAddressId: id } : { primaryPhoneNumberId: id })
      .where(eq(users.id, userId));
  }
}

/**
 * Adds an email address or phone number to a user: unverified (the user verifies it with a
 * code from the hosted profile) or, with `verified`, verified now (and primary when the user
 * has none). 422 `taken` when anyone holds it, 409 `too_many_identifiers` past the cap.
 */
export async function addUserIdentifier(
  deps: D,
  instanceId: string,
  userId: string,
  kindName: IdentifierKindName,
  value: string,
  verified: boolean,
) {
  const kind = IDENTIFIER_KINDS[kindName];
  return deps.db
    .transaction(async (tx) => {
      const d = { db: tx, clock: deps.clock };
      // Locks the user row: two racing adds count each other against the cap (NO KEY UPDATE: server/db/row-locks.ts).
      const [user] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)))
        .for('no key update');
      if (!user) await getUser(d, instanceId, userId); // 404, as for any missing user
      if ((await kind.count(tx, userId)) >= MAX_IDENTIFIERS) {
        throw new AppError('CONFLICT', {
          message: `A user holds at most ${MAX_IDENTIFIERS} of these.`,
          meta: { reason: 'too_many_identifiers' },
        });
      }
      await assertIdentifiersFree(tx, instanceId, kindName === 'email_address' ? { emails: [value] } : { phones: [value] });
      const id = newId('idn');
      const now = deps.clock.now();
      await kind.insert(tx, { id, instanceId, userId, value, now });
      if (verified) await markVerifiedByOperator(d, instanceId, userId, kindName, id, value);
      return identifierView(await emitUserUpdated(d, instanceId, userId), kind, id);
    })
    .catch(rethrowTaken);
}

async function markVerifiedByOperator(d: D, instanceId: string, userId: string, kindName: IdentifierKindName, id: string, value: string) {
  await IDENTIFIER_KINDS[kindName].markVerified(d.db, id, 'admin', d.clock.now());
  await primaryWhenNone(d, instanceId, userId, kindName, id);
  if (kindName === 'email_address') await enrollUserByEmailDomain(d, instanceId, userId, [value]);
}

/** Marks one of the user's identifiers verified on the operator's word (strategy `admin`); a verified one is left as it is. */
export async function verifyUserIdentifier(deps: D, instanceId: string, userId: string, kindName: IdentifierKindName, id: string) {
  const kind = IDENTIFIER_KINDS[kindName];
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock };
    const row = await mine(kind, tx, instanceId, userId, id);
    if (row.verified) return identifierView(await getUser(d, instanceId, userId), kind, id);
    await markVerifiedByOperator(d, instanceId, userId, kindName, id, row.value);
    return identifierView(await emitUserUpdated(d, instanceId, userId), kind, id);
  });
}

/** Removes one of the user's identifiers; the primary one stays (409 `primary_identifier`: make another primary first). */
export function removeUserIdentifier(deps: Deps, instanceId: string, userId: string, kindName: IdentifierKindName, id: string) {
  return removeMyIdentifier(deps, instanceId, userId, kindName, id);
}

export interface OperatorPassword {
  password: string;
  skip_password_checks?: boolean;
  sign_out_of_all_sessions?: boolean;
}

/**
 * Sets (or resets) a user's password as the BAPI's PATCH does (not an identifier unless
 * `skip_password_checks`; the caller has run the breach check), audited `user.updated`;
 * with `sign_out_of_all_sessions` every live session is revoked and sessions_version bumped
 * (audited `session.revoked_all`).
 */
export async function setUserPassword(
  deps: Pick<Deps, 'db' | 'clock' | 'passwords' | 'cacheInvalidation'>,
  instanceId: string,
  userId: string,
  input: OperatorPassword,
  auditCtx: AuditContext,
) {
  const view = await updateUser(
    deps,
    instanceId,
    userId,
    { password: input.password, skip_password_checks: input.skip_password_checks },
    auditCtx,
  );
  if (!input.sign_out_of_all_sessions) return view;
  await revokeUserSessions(deps, instanceId, userId, auditCtx);
  return getUser(deps, instanceId, userId);
}
