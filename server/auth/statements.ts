import { sql, type SQL } from 'drizzle-orm';
import { emailAddresses, phoneNumbers, signInAttempts, users } from '../db/schema';
import { passkeyOfUser } from '../passkeys/statements';
import { secondFactorOf } from '../sessions/statements';

/** The sign-in domain's hand-written statements (docs/development.md, "Data access"). */

type SignInRow = typeof signInAttempts.$inferSelect;

/**
 * The user as every sign-in rule needs them, in one read. Written out rather than built by
 * Drizzle: a sign-in's one read, sent as often as sign-ins.
 */
export const userForSignInSql = (instanceId: string, userId: string) => sql`
      select ${users.id}, ${users.banned}, ${users.locked}, ${users.lockedUntil}, ${users.sessionsVersion}, ${users.primaryEmailAddressId},
             ${secondFactorOf(users.id)} as second_factor, ${passkeyOfUser()} as passkey
        from ${users} where ${users.id} = ${userId} and ${users.instanceId} = ${instanceId}
      -- Locked before the session (a child row) is inserted: the sign-in writes the user row later
      -- (last sign-in, lockout counters), and asking for that lock after taking KEY SHARE through
      -- the session would deadlock behind a deletion or a username change (server/db/row-locks.ts).
      for no key update`;

/** The attempt `a` moves on, `returning *`; no row when its status changed meanwhile. */
export const moveAttemptSql = (
  a: Pick<SignInRow, 'id' | 'status'>,
  fields: Pick<SignInRow, 'status' | 'userId' | 'firstFactorStrategy' | 'sessionId' | 'riskReasons' | 'stepUpAddress' | 'updatedAt'>,
) => sql`update ${signInAttempts}
                     set status = ${fields.status}, user_id = ${fields.userId}, first_factor_strategy = ${fields.firstFactorStrategy}, session_id = ${fields.sessionId},
                         risk_reasons = ${fields.riskReasons ? JSON.stringify(fields.riskReasons) : null}::jsonb, step_up_address = ${fields.stepUpAddress}, updated_at = ${fields.updatedAt}
                   where id = ${a.id} and status = ${a.status} returning *`;

/** A new attempt, `returning *`: the user may be a subquery of the same statement. */
export const insertAttemptSql = (
  a: Pick<SignInRow, 'id' | 'status' | 'abandonAt' | 'createdAt' | 'updatedAt'>,
  row: Pick<SignInRow, 'instanceId' | 'clientId' | 'identifier'> & { userId: SQL },
) => sql`insert into ${signInAttempts} (id, instance_id, client_id, identifier, user_id, status, abandon_at, created_at, updated_at)
             values (${a.id}, ${row.instanceId}, ${row.clientId}, ${row.identifier}, ${row.userId}, ${a.status}, ${a.abandonAt}, ${a.createdAt}, ${a.updatedAt})
             returning *`;

export const lastSignInWrite = (userId: string, now: number) => sql`update ${users} set last_sign_in_at = ${now} where id = ${userId}`;

/** The user an identifier names in this instance, as a scalar subquery (null for nobody); `key` is the identifier lowercased. */
export const userIdByIdentifierSql = {
  email: (instanceId: string, key: string) =>
    sql`(select ${emailAddresses.userId} from ${emailAddresses} where ${emailAddresses.instanceId} = ${instanceId} and ${emailAddresses.emailKey} = ${key})`,
  // Only a verified number signs in: anyone may have typed an unverified one into their profile.
  phone: (instanceId: string, phone: string) =>
    sql`(select ${phoneNumbers.userId} from ${phoneNumbers}
                where ${phoneNumbers.instanceId} = ${instanceId} and ${phoneNumbers.phoneNumber} = ${phone} and ${phoneNumbers.verificationStatus} = 'verified')`,
  username: (instanceId: string, key: string) =>
    sql`(select ${users.id} from ${users} where ${users.instanceId} = ${instanceId} and ${users.usernameKey} = ${key})`,
};

/** What a password check needs of the user (`userId` a subquery), as one JSON value. */
export const storedPasswordSql = (instanceId: string, userId: SQL) => sql`(select to_json(x) from (
      select ${users.passwordDigest} as digest, ${users.passwordHasher} as hasher, ${users.locked} as locked, ${users.lockedUntil} as "lockedUntil"
        from ${users} where ${users.id} = ${userId} and ${users.instanceId} = ${instanceId}) x)`;
