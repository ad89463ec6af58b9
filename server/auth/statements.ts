import { sql, type SQL } from 'drizzle-orm';
import { statement, type Params } from '../db/prepared';
import { emailAddresses, phoneNumbers, signInAttempts, signUpAttempts, users } from '../db/schema';
import { passkeyOfUser } from '../passkeys/statements';
import { secondFactorOf } from '../sessions/statements';

/** The sign-in domain's hand-written statements (docs/development.md, "Data access"). */

type SignInRow = typeof signInAttempts.$inferSelect;

/**
 * The user as every sign-in rule needs them, in one read. Written out rather than built by
 * Drizzle: a sign-in's one read, sent as often as sign-ins.
 */
const userForSignIn = statement<'instanceId' | 'userId'>(
  'user_for_sign_in',
  (v) => sql`
      select ${users.id}, ${users.banned}, ${users.locked}, ${users.lockedUntil}, ${users.sessionsVersion}, ${users.primaryEmailAddressId},
             ${secondFactorOf(users.id)} as second_factor, ${passkeyOfUser()} as passkey
        from ${users} where ${users.id} = ${v.userId} and ${users.instanceId} = ${v.instanceId}
      -- Locked before the session (a child row) is inserted: the sign-in writes the user row later
      -- (last sign-in, lockout counters), and asking for that lock after taking KEY SHARE through
      -- the session would deadlock behind a deletion or a username change (server/db/row-locks.ts).
      for no key update`,
);
export const userForSignInSql = (instanceId: string, userId: string) => userForSignIn({ instanceId, userId });

/** The attempt `a` moves on, `returning *`; no row when its status changed meanwhile. */
type Move = Pick<SignInRow, 'status' | 'userId' | 'firstFactorStrategy' | 'sessionId' | 'riskReasons' | 'stepUpAddress' | 'updatedAt'>;
const moveAttempt = statement<keyof Move | 'id' | 'from'>(
  'sign_in_attempt_move',
  (v) => sql`update ${signInAttempts}
                     set status = ${v.status}, user_id = ${v.userId}, first_factor_strategy = ${v.firstFactorStrategy}, session_id = ${v.sessionId},
                         risk_reasons = ${v.riskReasons}::jsonb, step_up_address = ${v.stepUpAddress}, updated_at = ${v.updatedAt}
                   where id = ${v.id} and status = ${v.from} returning *`,
);
export const moveAttemptSql = (a: Pick<SignInRow, 'id' | 'status'>, fields: Move) =>
  moveAttempt({ ...fields, riskReasons: fields.riskReasons ? JSON.stringify(fields.riskReasons) : null, id: a.id, from: a.status });

const lastSignIn = statement<'userId' | 'now'>(
  'last_sign_in',
  (v) => sql`update ${users} set last_sign_in_at = ${v.now} where id = ${v.userId}`,
);
export const lastSignInWrite = (userId: string, now: number) => lastSignIn({ userId, now });

/** What names a user at sign-in: an email address, a (verified) phone number or a username. */
export type SignInIdentifierKind = 'email' | 'phone' | 'username';

/** The user an identifier names in this instance, as a scalar subquery (null for nobody); `key` is the identifier lowercased (a phone number as typed). */
const userIdByIdentifier: Record<SignInIdentifierKind, (instanceId: unknown, key: unknown) => SQL> = {
  email: (instanceId, key) =>
    sql`(select ${emailAddresses.userId} from ${emailAddresses} where ${emailAddresses.instanceId} = ${instanceId} and ${emailAddresses.emailKey} = ${key})`,
  // Only a verified number signs in: anyone may have typed an unverified one into their profile.
  phone: (instanceId, phone) =>
    sql`(select ${phoneNumbers.userId} from ${phoneNumbers}
                where ${phoneNumbers.instanceId} = ${instanceId} and ${phoneNumbers.phoneNumber} = ${phone} and ${phoneNumbers.verificationStatus} = 'verified')`,
  username: (instanceId, key) =>
    sql`(select ${users.id} from ${users} where ${users.instanceId} = ${instanceId} and ${users.usernameKey} = ${key})`,
};

const byIdentifier = <K extends string>(name: string, build: (v: Params<K | 'instanceId' | 'key'>, userId: SQL) => SQL) => {
  const of = (kind: SignInIdentifierKind) =>
    statement<K | 'instanceId' | 'key'>(`${name}_${kind}`, (v) => build(v, userIdByIdentifier[kind](v.instanceId, v.key)));
  return { email: of('email'), phone: of('phone'), username: of('username') };
};

/** A new attempt, `returning *`, its user looked up by identifier (`kind`, `key`) in the same statement. */
const insertAttempt = byIdentifier<'id' | 'clientId' | 'identifier' | 'status' | 'abandonAt' | 'createdAt' | 'updatedAt'>(
  'sign_in_attempt_insert',
  (
    v,
    userId,
  ) => sql`insert into ${signInAttempts} (id, instance_id, client_id, identifier, user_id, status, abandon_at, created_at, updated_at)
             values (${v.id}, ${v.instanceId}, ${v.clientId}, ${v.identifier}, ${userId}, ${v.status}, ${v.abandonAt}, ${v.createdAt}, ${v.updatedAt})
             returning *`,
);
export const insertAttemptSql = (
  a: Pick<SignInRow, 'id' | 'status' | 'abandonAt' | 'createdAt' | 'updatedAt'>,
  row: Pick<SignInRow, 'instanceId' | 'clientId' | 'identifier'> & { kind: SignInIdentifierKind; key: string },
) => insertAttempt[row.kind]({ ...a, instanceId: row.instanceId, clientId: row.clientId, identifier: row.identifier, key: row.key });

/** What a password check needs of the user an identifier names, as one JSON value. */
const storedPassword = byIdentifier<never>(
  'stored_password',
  (v, userId) => sql`(select to_json(x) from (
      select ${users.passwordDigest} as digest, ${users.passwordHasher} as hasher, ${users.locked} as locked, ${users.lockedUntil} as "lockedUntil"
        from ${users} where ${users.id} = ${userId} and ${users.instanceId} = ${v.instanceId}) x)`,
);
export const storedPasswordSql = (instanceId: string, kind: SignInIdentifierKind, key: string) => storedPassword[kind]({ instanceId, key });

type SignUpRow = typeof signUpAttempts.$inferSelect;
type NewSignUp = Pick<
  SignUpRow,
  | 'id'
  | 'instanceId'
  | 'clientId'
  | 'emailAddress'
  | 'phoneNumber'
  | 'username'
  | 'firstName'
  | 'lastName'
  | 'passwordDigest'
  | 'unsafeMetadata'
  | 'locale'
  | 'status'
  | 'abandonAt'
  | 'createdAt'
  | 'updatedAt'
>;

/** A new sign-up attempt, `returning *`. */
const signUpInsert = statement<keyof NewSignUp>(
  'sign_up_attempt_insert',
  (v) => sql`insert into ${signUpAttempts} (id, instance_id, client_id, email_address, phone_number, username, first_name, last_name,
               password_digest, unsafe_metadata, locale, status, abandon_at, created_at, updated_at)
             values (${v.id}, ${v.instanceId}, ${v.clientId}, ${v.emailAddress}, ${v.phoneNumber}, ${v.username}, ${v.firstName}, ${v.lastName},
               ${v.passwordDigest}, ${v.unsafeMetadata}::jsonb, ${v.locale}, ${v.status}, ${v.abandonAt}, ${v.createdAt}, ${v.updatedAt})
             returning *`,
);
export const signUpInsertSql = (row: NewSignUp) => signUpInsert({ ...row, unsafeMetadata: JSON.stringify(row.unsafeMetadata) });

/** Whether an address (`key`, lowercased) is taken in the instance: a row, or none. */
const emailTaken = statement<'instanceId' | 'key'>(
  'email_taken',
  (v) =>
    sql`select 1 as taken from ${emailAddresses} where ${emailAddresses.instanceId} = ${v.instanceId} and ${emailAddresses.emailKey} = ${v.key} limit 1`,
);
export const emailTakenSql = (instanceId: string, key: string) => emailTaken({ instanceId, key });
