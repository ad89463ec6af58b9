import type { ParentLock } from '../db/row-locks';
import { userSearch } from '../db/user-search';
import { and, asc, desc, eq, gt, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client';
import { prepared } from '../db/prepared';
import { rowsOf } from '../db/rows';
import { uniqueViolation } from '../db/errors';
import { emailAddresses, phoneNumbers, users } from '../db/schema';
import { audit } from '../audit/audit';
import { emitEvent } from '../events/events';
import { revokeKeysOfSubject } from '../apikeys/lifecycle';
import type { AuditContext } from '../http/actor';
import { notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { cursorList, newestFirst, oldestFirst, type Keyset } from '../http/cursor-list';
import { revokeLiveSessions } from '../sessions/sessions';
import { enrollUserByEmailDomain } from '../organizations/domains';
import { removeUserMemberships } from '../organizations/memberships';
import { assertMetadata, mergeMetadataChecked } from '../http/metadata';
import { digestProblem, importLimitText, type PasswordHasher } from '../crypto/passwords';
import type { CreateUserInput, ListUsersInput, UpdateUserInput, UserView } from './schemas';
import {
  hasVerifiedEmailSql,
  hasVerifiedTotpSql,
  userById,
  type EmailAddressJson,
  type PhoneNumberJson,
  type UserByIdRow,
} from './statements';
import { count as countMetric } from '../analytics/metrics';

type UserFilterInput = Omit<ListUsersInput, 'limit' | 'starting_after' | 'order_by'>;

/** A user list's order: the expression, its SQL type (for the cursor's value) and direction; the id breaks ties. */
type UserSort = { key: SQL; type: SQL; ascending: boolean };
function sortOf(order: ListUsersInput['order_by']): UserSort | null {
  switch (order) {
    case 'last_sign_in_at':
    case '-last_sign_in_at':
      return { key: sql`coalesce(${users.lastSignInAt}, 0)`, type: sql`bigint`, ascending: order === 'last_sign_in_at' };
    case 'name':
    case '-name':
      return { key: USER_SORT_NAME, type: sql`text`, ascending: order === 'name' };
    default:
      return null;
  }
}
/** What "sort by name" compares: first and last name, else the username, case-folded (users_sort_name_idx). */
const USER_SORT_NAME = sql`lower(coalesce(${users.firstName}, '') || ' ' || coalesce(${users.lastName}, '') || ' ' || coalesce(${users.username}, ''))`;

/** A user with what its view shows: one row of the user read (`userById`), or of a list's relational query. */
type UserRow = typeof users.$inferSelect & {
  /** Whether the user has a verified TOTP factor (users/mfa.ts), selected with the user. */
  twoFactorEnabled?: boolean;
  emailAddresses: EmailAddressJson[];
  phoneNumbers: PhoneNumberJson[];
};
type D = Pick<Deps, 'db' | 'clock' | 'passwords'>;

const byCreation = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : 1);

/** A lockout ends by itself at `locked_until`: the user is shown locked only until then. */
const lockedAt = (u: Pick<UserRow, 'locked' | 'lockedUntil'>, now: number) => u.locked && (u.lockedUntil === null || u.lockedUntil > now);

export function userView(u: UserRow, now: number): UserView {
  return {
    object: 'user',
    id: u.id,
    external_id: u.externalId,
    first_name: u.firstName,
    last_name: u.lastName,
    username: u.username,
    primary_email_address_id: u.primaryEmailAddressId,
    primary_phone_number_id: u.primaryPhoneNumberId,
    email_addresses: [...u.emailAddresses].sort(byCreation).map((e) => ({
      object: 'email_address',
      id: e.id,
      email_address: e.emailAddress,
      verification: { status: e.verificationStatus, strategy: e.verificationStrategy },
      created_at: e.createdAt,
      updated_at: e.updatedAt,
    })),
    phone_numbers: [...u.phoneNumbers].sort(byCreation).map((p) => ({
      object: 'phone_number',
      id: p.id,
      phone_number: p.phoneNumber,
      verification: { status: p.verificationStatus, strategy: p.verificationStrategy },
      created_at: p.createdAt,
      updated_at: p.updatedAt,
    })),
    password_enabled: u.passwordDigest !== null,
    two_factor_enabled: u.twoFactorEnabled ?? false,
    public_metadata: u.publicMetadata,
    private_metadata: u.privateMetadata,
    unsafe_metadata: u.unsafeMetadata,
    banned: u.banned,
    locked: lockedAt(u, now),
    locked_until: lockedAt(u, now) ? u.lockedUntil : null,
    sessions_version: u.sessionsVersion,
    locale: u.locale,
    image_url: u.imageUrl ?? '',
    has_image: u.imageUrl !== null,
    last_sign_in_at: u.lastSignInAt,
    created_at: u.createdAt,
    updated_at: u.updatedAt,
  };
}

const withIdentifiers = { emailAddresses: true, phoneNumbers: true } as const;
/** `two_factor_enabled`: an indexed EXISTS beside each user. */
const twoFactorExtra = (u: { id: typeof users.id }) => ({
  twoFactorEnabled: hasVerifiedTotpSql(u.id).as('two_factor_enabled'),
});

const millisOf = (v: number | string | null) => (v === null ? null : Number(v));
/** A json value as the driver gave it: parsed already, or its text (as Drizzle's jsonb column maps it). */
function jsonOf<T>(v: T | string): T {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v) as T;
  } catch {
    return v as T;
  }
}

/** A row of the user read as the schema's fields (bigint as numbers, json parsed on either driver). */
function userRowOf(r: UserByIdRow): UserRow {
  return {
    id: r.id,
    instanceId: r.instance_id,
    externalId: r.external_id,
    firstName: r.first_name,
    lastName: r.last_name,
    username: r.username,
    usernameKey: r.username_key,
    primaryEmailAddressId: r.primary_email_address_id,
    primaryPhoneNumberId: r.primary_phone_number_id,
    passwordDigest: r.password_digest,
    passwordHasher: r.password_hasher,
    publicMetadata: jsonOf(r.public_metadata as UserRow['publicMetadata']),
    privateMetadata: jsonOf(r.private_metadata as UserRow['privateMetadata']),
    unsafeMetadata: jsonOf(r.unsafe_metadata as UserRow['unsafeMetadata']),
    banned: r.banned,
    locked: r.locked,
    lockedUntil: millisOf(r.locked_until),
    sessionsVersion: r.sessions_version,
    lastSignInAt: millisOf(r.last_sign_in_at),
    locale: r.locale,
    imageUrl: r.image_url,
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    twoFactorEnabled: r.two_factor_enabled,
    emailAddresses: jsonOf(r.email_addresses),
    phoneNumbers: jsonOf(r.phone_numbers),
  };
}

/** One prepared statement (users/statements.ts): the user with its email addresses, phone numbers and second factor. */
async function findUser(db: Db, instanceId: string, id: string): Promise<UserRow | undefined> {
  const [row] = rowsOf<UserByIdRow>(await userById(db).execute({ id, instanceId }));
  return row && userRowOf(row);
}

async function loadUser(db: Db, instanceId: string, id: string): Promise<UserRow> {
  const row = await findUser(db, instanceId, id);
  if (!row) throw notFound('user');
  return row;
}

export async function getUser(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, id: string): Promise<UserView> {
  return userView(await loadUser(deps.db, instanceId, id), deps.clock.now());
}

async function passwordColumns(
  deps: Pick<Deps, 'passwords'>,
  input: {
    password?: string;
    password_digest?: string;
    password_hasher?: PasswordHasher;
  },
): Promise<{ passwordDigest: string; passwordHasher: PasswordHasher } | null> {
  if (input.password !== undefined) return { passwordDigest: await deps.passwords.hash(input.password), passwordHasher: 'argon2id' };
  if (input.password_digest !== undefined && input.password_hasher !== undefined) {
    const problem = digestProblem(input.password_hasher, input.password_digest);
    if (problem === 'invalid') {
      throw validationError('password_digest', 'invalid', `password_digest is not a valid ${input.password_hasher} digest.`);
    }
    if (problem === 'cost_too_high') {
      // Every sign-in of this user would pay it: see IMPORT_COST_LIMITS.
      throw validationError(
        'password_digest',
        'cost_too_high',
        `password_digest costs more to verify than imports may (${input.password_hasher}: ${importLimitText(input.password_hasher)}).`,
      );
    }
    return { passwordDigest: input.password_digest, passwordHasher: input.password_hasher };
  }
  return null;
}

function checkPasswordPolicy(input: { password?: string; skip_password_checks?: boolean }, identifiers: string[]) {
  if (input.password === undefined || input.skip_password_checks) return;
  const lowered = input.password.toLowerCase();
  if (identifiers.some((id) => id.toLowerCase() === lowered)) {
    throw validationError('password', 'matches_identifier', 'password must not be the same as an identifier.');
  }
}

export async function assertIdentifiersFree(
  db: Db,
  instanceId: string,
  ids: { emails?: string[]; phones?: string[]; username?: string | null },
  exceptUserId?: string,
) {
  const notSelf = (col: AnyPgColumn) => (exceptUserId ? sql`${col} <> ${exceptUserId}` : sql`true`);
  if (ids.emails?.length) {
    const taken = await db
      .select({ email: emailAddresses.emailAddress })
      .from(emailAddresses)
      .where(
        and(
          eq(emailAddresses.instanceId, instanceId),
          inArray(
            emailAddresses.emailKey,
            ids.emails.map((e) => e.toLowerCase()),
          ),
          notSelf(emailAddresses.userId),
        ),
      )
      .limit(1);
    if (taken[0]) throw validationError('email_address', 'taken', `${taken[0].email} is already taken.`);
  }
  if (ids.phones?.length) {
    const taken = await db
      .select({ phone: phoneNumbers.phoneNumber })
      .from(phoneNumbers)
      .where(and(eq(phoneNumbers.instanceId, instanceId), inArray(phoneNumbers.phoneNumber, ids.phones), notSelf(phoneNumbers.userId)))
      .limit(1);
    if (taken[0]) throw validationError('phone_number', 'taken', `${taken[0].phone} is already taken.`);
  }
  if (ids.username) {
    const taken = await db
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.instanceId, instanceId), eq(users.usernameKey, ids.username.toLowerCase()), notSelf(users.id)))
      .limit(1);
    if (taken[0]) throw validationError('username', 'taken', 'That username is already taken.');
  }
}

/** A race past the pre-check still ends as a clear 422 naming the field. */
export function rethrowTaken(err: unknown): never {
  const constraint = uniqueViolation(err);
  if (constraint === 'email_addresses_uq') throw validationError('email_address', 'taken', 'That email address is already taken.');
  if (constraint === 'phone_numbers_uq') throw validationError('phone_number', 'taken', 'That phone number is already taken.');
  if (constraint === 'users_username_uq') throw validationError('username', 'taken', 'That username is already taken.');
  throw err;
}

const dedupe = (list: string[] | undefined, key: (s: string) => string = (s) => s) => {
  const seen = new Set<string>();
  return (list ?? []).filter((v) => !seen.has(key(v)) && seen.add(key(v)));
};

/**
 * Creates a user with verified identifiers; emits user.created. `verificationStrategy`
 * names how the addresses were verified: `admin` (BAPI) unless said, `email_code` on
 * FAPI sign-up. Runs in the caller's transaction if any.
 */
export async function createUser(
  deps: D,
  instanceId: string,
  input: CreateUserInput,
  opts: {
    verificationStrategy?: string;
    audit: AuditContext;
    /** The user signs in through an identity of another system (an LTI platform's iss + sub) and needs no identifier here. */
    externalIdentity?: boolean;
    /** Numbers a source vouches nothing for (a SCIM directory's): stored unverified, in user.created; one another user holds is left out. */
    unverifiedPhones?: string[];
  },
): Promise<UserView> {
  const emails = dedupe(input.email_address, (e) => e.toLowerCase());
  const phones = dedupe(input.phone_number);
  if (emails.length === 0 && phones.length === 0 && !input.username && !opts.externalIdentity) {
    throw validationError('email_address', 'identifier_required', 'A user needs an email address, a phone number or a username.');
  }
  checkPasswordPolicy(input, [...emails, ...phones, input.username ?? '']);
  for (const param of ['public_metadata', 'private_metadata', 'unsafe_metadata'] as const) assertMetadata(param, input[param] ?? {});
  const password = await passwordColumns(deps, input);
  const now = deps.clock.now();
  const userId = newId('user');
  const emailRows = emails.map((e) => ({
    id: newId('idn'),
    instanceId,
    userId,
    emailAddress: e,
    emailKey: e.toLowerCase(),
    verificationStatus: 'verified' as const,
    verificationStrategy: opts.verificationStrategy ?? 'admin',
    createdAt: now,
    updatedAt: now,
  }));
  const phoneRows = phones.map((p) => ({
    id: newId('idn'),
    instanceId,
    userId,
    phoneNumber: p,
    verificationStatus: 'verified' as const,
    verificationStrategy: opts.verificationStrategy ?? 'admin',
    createdAt: now,
    updatedAt: now,
  }));
  return deps.db
    .transaction(async (tx) => {
      await assertIdentifiersFree(tx, instanceId, { emails, phones, username: input.username });
      await countMetric({ db: tx, clock: deps.clock }, instanceId, 'users_created');
      await tx.insert(users).values({
        id: userId,
        instanceId,
        externalId: input.external_id ?? null,
        firstName: input.first_name ?? null,
        lastName: input.last_name ?? null,
        username: input.username ?? null,
        usernameKey: input.username?.toLowerCase() ?? null,
        primaryEmailAddressId: emailRows[0]?.id ?? null,
        primaryPhoneNumberId: phoneRows[0]?.id ?? null,
        passwordDigest: password?.passwordDigest ?? null,
        passwordHasher: password?.passwordHasher ?? null,
        publicMetadata: input.public_metadata ?? {},
        privateMetadata: input.private_metadata ?? {},
        unsafeMetadata: input.unsafe_metadata ?? {},
        locale: input.locale ?? null,
        createdAt: now,
        updatedAt: now,
      });
      if (emailRows.length) await tx.insert(emailAddresses).values(emailRows);
      if (phoneRows.length) await tx.insert(phoneNumbers).values(phoneRows);
      const unverified = dedupe(opts.unverifiedPhones ?? []).filter((p) => !phones.includes(p));
      await insertUnverifiedPhones(tx, now, { instanceId, userId, strategy: opts.verificationStrategy ?? 'admin' }, unverified);
      const view = userView(await loadUser(tx, instanceId, userId), now);
      await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'user.created', view);
      await enrollUserByEmailDomain({ db: tx, clock: deps.clock }, instanceId, userId, emails);
      await auditUserChange({ db: tx, clock: deps.clock }, instanceId, opts.audit, 'user.created', userId);
      return view;
    })
    .catch(rethrowTaken);
}

/** Adds numbers to a user unverified (they sign in only once the user verifies them); one another user holds is left out. */
export async function insertUnverifiedPhones(
  db: Db,
  now: number,
  owner: { instanceId: string; userId: string; strategy: string },
  numbers: string[],
) {
  if (numbers.length === 0) return;
  await db
    .insert(phoneNumbers)
    .values(
      numbers.map((phoneNumber) => ({
        id: newId('idn'),
        instanceId: owner.instanceId,
        userId: owner.userId,
        phoneNumber,
        verificationStatus: 'unverified' as const,
        verificationStrategy: owner.strategy,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing();
}

/**
 * Records a user change in its transaction. Creating and updating a user audit here rather
 * than in the router because a password is hashed first, outside any transaction: hashing
 * inside one would hold a database connection (the embedded store's only one) for its length.
 */
function auditUserChange(
  d: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  ctx: AuditContext,
  action: string,
  userId: string,
  details?: Record<string, unknown>,
) {
  return audit(d, {
    instanceId,
    actor: ctx.actor,
    actorKind: ctx.actorKind,
    action,
    target: userId,
    ip: ctx.ip,
    userAgent: ctx.userAgent,
    details,
  });
}

export async function updateUser(
  deps: D,
  instanceId: string,
  id: string,
  input: UpdateUserInput,
  auditCtx: AuditContext,
): Promise<UserView> {
  const password = await passwordColumns(deps, input);
  return deps.db
    .transaction(async (tx) => {
      // Metadata is read, merged and written back: the row lock makes the bound hold against the stored value.
      // A new username (a unique column) takes FOR UPDATE anyway: asked first, not as an upgrade (server/db/row-locks.ts).
      const lock: ParentLock | null =
        input.username !== undefined
          ? 'update'
          : input.public_metadata || input.private_metadata || input.unsafe_metadata
            ? 'no key update'
            : null;
      if (lock)
        await tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, id), eq(users.instanceId, instanceId)))
          .for(lock);
      const current = await loadUser(tx, instanceId, id);
      const patch: Partial<typeof users.$inferInsert> = { updatedAt: deps.clock.now() };
      if (input.first_name !== undefined) patch.firstName = input.first_name;
      if (input.last_name !== undefined) patch.lastName = input.last_name;
      if (input.external_id !== undefined) patch.externalId = input.external_id;
      if (input.locale !== undefined) patch.locale = input.locale;
      if (input.username !== undefined) {
        await assertIdentifiersFree(tx, instanceId, { username: input.username }, id);
        patch.username = input.username;
        patch.usernameKey = input.username?.toLowerCase() ?? null;
      }
      if (input.primary_email_address_id !== undefined) {
        const email = current.emailAddresses.find((e) => e.id === input.primary_email_address_id);
        if (!email) {
          throw validationError(
            'primary_email_address_id',
            'not_found',
            'primary_email_address_id is not one of this user’s email addresses.',
          );
        }
        if (email.verificationStatus !== 'verified')
          throw validationError('primary_email_address_id', 'unverified', 'Only a verified email address can be primary.');
        patch.primaryEmailAddressId = input.primary_email_address_id;
      }
      if (input.primary_phone_number_id !== undefined) {
        const phone = current.phoneNumbers.find((p) => p.id === input.primary_phone_number_id);
        if (!phone) {
          throw validationError('primary_phone_number_id', 'not_found', 'primary_phone_number_id is not one of this user’s phone numbers.');
        }
        if (phone.verificationStatus !== 'verified')
          throw validationError('primary_phone_number_id', 'unverified', 'Only a verified phone number can be primary.');
        patch.primaryPhoneNumberId = input.primary_phone_number_id;
      }
      if (password) {
        checkPasswordPolicy(input, [
          ...current.emailAddresses.map((e) => e.emailAddress),
          ...current.phoneNumbers.map((p) => p.phoneNumber),
          input.username ?? current.username ?? '',
        ]);
        Object.assign(patch, password);
      }
      if (input.public_metadata)
        patch.publicMetadata = mergeMetadataChecked('public_metadata', current.publicMetadata, input.public_metadata);
      if (input.private_metadata)
        patch.privateMetadata = mergeMetadataChecked('private_metadata', current.privateMetadata, input.private_metadata);
      if (input.unsafe_metadata)
        patch.unsafeMetadata = mergeMetadataChecked('unsafe_metadata', current.unsafeMetadata, input.unsafe_metadata);
      await tx.update(users).set(patch).where(eq(users.id, id));
      const view = userView(await loadUser(tx, instanceId, id), deps.clock.now());
      await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'user.updated', view);
      await auditUserChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'user.updated', id, { fields: Object.keys(input) });
      return view;
    })
    .catch(rethrowTaken);
}

/** Deletes the user; its live sessions are revoked first (session.revoked each), then go with it. */
export async function deleteUser(deps: D & Pick<Deps, 'cacheInvalidation'>, instanceId: string, id: string) {
  return deps.db.transaction(async (tx) => {
    // The deletion's FOR UPDATE, first: later it would wait on a sign-in's KEY SHARE while holding
    // the organizations' locks that sign-in may queue for (server/db/row-locks.ts).
    await tx
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, id), eq(users.instanceId, instanceId)))
      .for('update');
    const current = userView(await loadUser(tx, instanceId, id), deps.clock.now());
    await removeUserMemberships({ ...deps, db: tx }, instanceId, id);
    await revokeLiveSessions({ ...deps, db: tx }, instanceId, id);
    await revokeKeysOfSubject({ db: tx, clock: deps.clock }, instanceId, id, 'user_deleted');
    await tx.delete(users).where(and(eq(users.id, id), eq(users.instanceId, instanceId)));
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'user.deleted', { ...current, deleted: true });
    return { object: 'user' as const, id, deleted: true as const };
  });
}

/**
 * Ban or unban; a no-op (and no event) when the user is already in that state. A ban
 * revokes the user's live sessions.
 */
export async function setBanned(
  deps: D & Pick<Deps, 'cacheInvalidation'>,
  instanceId: string,
  id: string,
  banned: boolean,
): Promise<UserView> {
  return deps.db.transaction(async (tx) => {
    const current = await loadUser(tx, instanceId, id);
    if (current.banned === banned) return userView(current, deps.clock.now());
    await tx.update(users).set({ banned, updatedAt: deps.clock.now() }).where(eq(users.id, id));
    if (banned) await revokeLiveSessions({ ...deps, db: tx }, instanceId, id);
    if (banned) await revokeKeysOfSubject({ db: tx, clock: deps.clock }, instanceId, id, 'user_banned');
    const view = userView(await loadUser(tx, instanceId, id), deps.clock.now());
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, banned ? 'user.banned' : 'user.unbanned', view);
    return view;
  });
}

/** The unfiltered page, the common case, prepared once per order and cursor shape. */
function preparePlainPage(db: Db, ascending: boolean, withCursor: boolean) {
  const instance = eq(users.instanceId, sql.placeholder('instanceId'));
  const cursor = ascending ? gt(users.id, sql.placeholder('cursor')) : lt(users.id, sql.placeholder('cursor'));
  return db.query.users
    .findMany({
      where: withCursor ? and(instance, cursor) : instance,
      orderBy: ascending ? asc(users.id) : desc(users.id),
      limit: sql.placeholder('limit'),
      with: withIdentifiers,
      extras: twoFactorExtra,
    })
    .prepare(`list_users_${ascending ? 'asc' : 'desc'}${withCursor ? '_cursor' : ''}`);
}
const plainPages = {
  'desc:': prepared((db) => preparePlainPage(db, false, false)),
  'desc:cursor': prepared((db) => preparePlainPage(db, false, true)),
  'asc:': prepared((db) => preparePlainPage(db, true, false)),
  'asc:cursor': prepared((db) => preparePlainPage(db, true, true)),
};
const plainPage = (db: Db, ascending: boolean, withCursor: boolean) =>
  plainPages[`${ascending ? 'asc' : 'desc'}:${withCursor ? 'cursor' : ''}`](db);

/**
 * The WHERE of a user list or count: the instance and the filters given (never the cursor),
 * apart so that a test can EXPLAIN it: each filter has an index (query-plans.test.ts).
 */
export function userFilters(db: Db, instanceId: string, q: UserFilterInput): (SQL | undefined)[] {
  const filters: (SQL | undefined)[] = [eq(users.instanceId, instanceId)];
  if (q.external_id) filters.push(inArray(users.externalId, q.external_id));
  if (q.username)
    filters.push(
      inArray(
        users.usernameKey,
        q.username.map((u) => u.toLowerCase()),
      ),
    );
  if (q.email_address) {
    const keys = q.email_address.map((e) => e.toLowerCase());
    // By the instance too, so the (instance_id, email_key) index finds the addresses.
    filters.push(
      inArray(
        users.id,
        db
          .select({ id: emailAddresses.userId })
          .from(emailAddresses)
          .where(and(eq(emailAddresses.instanceId, instanceId), inArray(emailAddresses.emailKey, keys))),
      ),
    );
  }
  if (q.query) filters.push(sql`${users.id} = any(array(${userSearch(instanceId, q.query)}))`);
  if (q.banned !== undefined) filters.push(eq(users.banned, q.banned));
  if (q.locked !== undefined) filters.push(eq(users.locked, q.locked));
  if (q.created_after !== undefined) filters.push(gte(users.createdAt, q.created_after));
  if (q.created_before !== undefined) filters.push(lt(users.createdAt, q.created_before));
  if (q.last_active_after !== undefined) filters.push(gte(users.lastSignInAt, q.last_active_after));
  if (q.last_active_before !== undefined) filters.push(lt(users.lastSignInAt, q.last_active_before));
  if (q.has_mfa !== undefined) {
    const enrolled = hasVerifiedTotpSql(users.id);
    filters.push(q.has_mfa ? enrolled : sql`not ${enrolled}`);
  }
  if (q.email_verified !== undefined) {
    const verified = hasVerifiedEmailSql(users.id);
    filters.push(q.email_verified ? verified : sql`not ${verified}`);
  }
  return filters;
}

const hasFilters = (q: UserFilterInput) => Object.entries(q).some(([, v]) => v !== undefined);

export async function listUsers(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, q: ListUsersInput) {
  const view = (u: UserRow) => userView(u, deps.clock.now());
  const ascending = q.order_by === 'created_at';
  const { limit: _l, starting_after: _s, order_by: _o, ...filterInput } = q;
  const sort = sortOf(q.order_by);
  if (sort) return listUsersSorted(deps, instanceId, q, filterInput, sort);
  const order = ascending ? oldestFirst(users.id) : newestFirst(users.id);
  if (!hasFilters(filterInput)) {
    // The same keyset, in the statement prepared for this order and cursor shape.
    const plain = (k: Keyset) =>
      plainPage(deps.db, ascending, Boolean(q.starting_after)).execute({ instanceId, cursor: q.starting_after, limit: k.limit });
    return cursorList(q, order, plain, view);
  }
  const filters = userFilters(deps.db, instanceId, q);
  const rows = (k: Keyset) =>
    deps.db.query.users.findMany({
      where: and(...filters, k.after),
      orderBy: k.orderBy,
      limit: k.limit,
      with: withIdentifiers,
      extras: twoFactorExtra,
    });
  return cursorList(q, order, rows, view);
}

/**
 * A page in another order than creation: keyset on (sort key, id) from the cursor user's own
 * key, so pages never repeat or skip a user that stays put.
 */
async function listUsersSorted(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  q: ListUsersInput,
  filterInput: UserFilterInput,
  sort: UserSort,
) {
  const filters = userFilters(deps.db, instanceId, filterInput);
  if (q.starting_after) {
    const [cursor] = await deps.db
      .select({ key: sql<string>`(${sort.key})::text` })
      .from(users)
      .where(and(eq(users.id, q.starting_after), eq(users.instanceId, instanceId)));
    const key = cursor && sql`cast(${cursor.key} as ${sort.type})`;
    if (key)
      filters.push(
        sort.ascending
          ? sql`(${sort.key}, ${users.id}) > (${key}, ${q.starting_after})`
          : sql`(${sort.key}, ${users.id}) < (${key}, ${q.starting_after})`,
      );
  }
  // The keyset is (sort key, id), built above from the cursor user's key: only the page size comes from k.
  const rows = (k: Keyset) =>
    deps.db.query.users.findMany({
      where: and(...filters),
      orderBy: sort.ascending ? [asc(sort.key), asc(users.id)] : [desc(sort.key), desc(users.id)],
      limit: k.limit,
      with: withIdentifiers,
      extras: twoFactorExtra,
    });
  return cursorList(q, sort.ascending ? oldestFirst(users.id) : newestFirst(users.id), rows, (u: UserRow) => userView(u, deps.clock.now()));
}

/** How many users match the list filters (GET /v1/users/count). */
export async function countUsers(deps: Pick<Deps, 'db'>, instanceId: string, q: UserFilterInput): Promise<number> {
  const [row] = await deps.db
    .select({ n: sql<number>`count(*)::int` })
    .from(users)
    .where(and(...userFilters(deps.db, instanceId, q)));
  return Number(row?.n ?? 0);
}
