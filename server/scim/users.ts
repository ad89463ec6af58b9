import { and, asc, count, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { uniqueViolation } from '../db/errors';
import { newId } from '../db/ids';
import { emailAddresses, organizationMemberships, scimGroupMembers, scimUsers, users, type ScimEmail, type ScimPhone } from '../db/schema';
import { emailAddress, phoneNumber as phoneNumberRule } from '../email/addresses';
import { normalizeLocale } from '../instances/locales';
import { username as usernameRule } from '../users/schemas';
import { emitEvent } from '../events/events';
import { isAppError } from '../http/errors';
import { instanceContext } from '../instances/instances';
import { auditOrgChange } from '../organizations/audit';
import { addMembership, membershipsWithUsers, membershipView, removeMembershipInTx } from '../organizations/memberships';
import { emailDomain } from '../organizations/domains';
import { loadOrganization } from '../organizations/organization-view';
import { revokeUserSessions } from '../sessions/sessions';
import { createUser, deleteUser, insertUnverifiedPhones, setBanned, updateUser } from '../users/users';
import { project, type ListQuery, type Projection } from './attributes';
import { checkIfMatch, etagOf, isoTime, scimNotFound, type Directory } from './directory';
import { ENTERPRISE_SCHEMA, listResponse, USER_SCHEMA } from './discovery';
import { invalidValue, scimError } from './errors';
import { parseFilter } from './filter';
import { filterToSql, tableResolver, type AttrSpec } from './filter-sql';
import { emailsSpec, phonesSpec } from './statements';
import { atOwnVerifiedDomain, ownsUser, verifiedByAnotherOrganization } from './ownership';
import { applyPatch, type PatchBody, type PatchShape } from './patch';
import { mappedRoleFor } from './roles';
import { parseUserInput, type ScimUserInput } from './user-input';

type Joined = { firstName: string | null; lastName: string | null; username: string | null; locale: string | null };
type ScimUserRow = typeof scimUsers.$inferSelect & Joined;

const EXTENSIONS = [ENTERPRISE_SCHEMA] as const;

/** The directory's user with the Latchkey user's names. */
function usersQuery(db: Db, where: SQL | undefined) {
  return db
    .select({ row: scimUsers, firstName: users.firstName, lastName: users.lastName, username: users.username, locale: users.locale })
    .from(scimUsers)
    .innerJoin(users, eq(users.id, scimUsers.userId))
    .where(where);
}

const toRow = (r: { row: typeof scimUsers.$inferSelect } & Joined): ScimUserRow => ({
  ...r.row,
  firstName: r.firstName,
  lastName: r.lastName,
  username: r.username,
  locale: r.locale,
});

async function findScimUser(db: Db, dir: Directory, userId: string, lock = false): Promise<ScimUserRow> {
  const q = usersQuery(db, and(eq(scimUsers.organizationId, dir.organizationId), eq(scimUsers.userId, userId)));
  const [r] = lock ? await q.for('update', { of: scimUsers }) : await q;
  if (!r) throw scimNotFound('User');
  return toRow(r);
}

/** The SCIM representation (RFC 7643 §4.1) of a provisioned user. */
export function userResource(r: ScimUserRow, dir: Pick<Directory, 'baseUrl'>) {
  const enterprise = Object.keys(r.enterprise).length > 0;
  const name = {
    ...(r.firstName ? { givenName: r.firstName } : {}),
    ...(r.lastName ? { familyName: r.lastName } : {}),
    ...(r.firstName || r.lastName ? { formatted: [r.firstName, r.lastName].filter(Boolean).join(' ') } : {}),
  };
  return {
    schemas: enterprise ? [USER_SCHEMA, ENTERPRISE_SCHEMA] : [USER_SCHEMA],
    id: r.userId,
    ...(r.externalId ? { externalId: r.externalId } : {}),
    userName: r.userName,
    name,
    ...(r.displayName ? { displayName: r.displayName } : {}),
    emails: r.emails,
    ...(r.phoneNumbers.length ? { phoneNumbers: r.phoneNumbers } : {}),
    ...(r.addresses.length ? { addresses: r.addresses } : {}),
    ...(r.title ? { title: r.title } : {}),
    ...(r.preferredLanguage ? { preferredLanguage: r.preferredLanguage } : {}),
    active: r.active,
    ...(enterprise ? { [ENTERPRISE_SCHEMA]: r.enterprise } : {}),
    meta: {
      resourceType: 'User',
      created: isoTime(r.createdAt),
      lastModified: isoTime(r.updatedAt),
      location: `${dir.baseUrl}/Users/${r.userId}`,
      version: etagOf(r.version),
    },
  };
}
export async function getScimUser(deps: Pick<Deps, 'db'>, dir: Directory, id: string) {
  return findScimUser(deps.db, dir, id);
}

// --- Filters ---

const str = (expr: AnyPgColumn | SQL, caseExact = false, key?: AnyPgColumn): AttrSpec => ({
  kind: 'string',
  expr,
  caseExact,
  ...(key ? { key } : {}),
});

const userAttributes = tableResolver(USER_SCHEMA.toLowerCase(), {
  [USER_SCHEMA.toLowerCase()]: {
    id: str(scimUsers.userId, true),
    username: str(scimUsers.userName, false, scimUsers.userNameKey),
    externalid: str(scimUsers.externalId, true),
    displayname: str(scimUsers.displayName),
    active: { kind: 'boolean', expr: scimUsers.active },
    'name.givenname': str(users.firstName),
    'name.familyname': str(users.lastName),
    emails: emailsSpec,
    phonenumbers: phonesSpec,
    title: str(scimUsers.title),
    preferredlanguage: str(scimUsers.preferredLanguage),
    'meta.created': { kind: 'datetime', expr: scimUsers.createdAt },
    'meta.lastmodified': { kind: 'datetime', expr: scimUsers.updatedAt },
  },
  [ENTERPRISE_SCHEMA.toLowerCase()]: {
    employeenumber: str(sql`(${scimUsers.enterprise}->>'employeeNumber')`, true),
    department: str(sql`(${scimUsers.enterprise}->>'department')`),
    'manager.value': str(sql`(${scimUsers.enterprise}->'manager'->>'value')`, true),
  },
});

/** GET /Users: filtered, 1-based `startIndex`, `count` per page, oldest first. */
export async function listScimUsers(deps: Pick<Deps, 'db'>, dir: Directory, q: ListQuery) {
  const where = and(
    eq(scimUsers.organizationId, dir.organizationId),
    q.filter ? filterToSql(parseFilter(q.filter), userAttributes) : undefined,
  );
  const [total] = await deps.db.select({ n: count() }).from(scimUsers).innerJoin(users, eq(users.id, scimUsers.userId)).where(where);
  const rows =
    q.count === 0
      ? []
      : await usersQuery(deps.db, where)
          .orderBy(asc(scimUsers.userId))
          .limit(q.count)
          .offset(q.startIndex - 1);
  return listResponse(
    rows.map((r) => project(userResource(toRow(r), dir), q, EXTENSIONS)),
    Number(total?.n ?? 0),
    q.startIndex,
  );
}

export const projectUser = (r: ScimUserRow, dir: Directory, p: Projection) => project(userResource(r, dir), p, EXTENSIONS);

// --- Writes ---

type D = Deps;

const uniqueness = (detail: string) => scimError('CONFLICT', 'uniqueness', detail);

async function assertUserNameFree(db: Db, dir: Directory, userName: string, exceptUserId?: string) {
  const [taken] = await db
    .select({ id: scimUsers.userId })
    .from(scimUsers)
    .where(
      and(
        eq(scimUsers.organizationId, dir.organizationId),
        eq(scimUsers.userNameKey, userName.toLowerCase()),
        exceptUserId ? ne(scimUsers.userId, exceptUserId) : undefined,
      ),
    );
  if (taken) throw uniqueness(`A user with the userName ${userName} already exists in this directory.`);
}

/** A Latchkey user of the instance holding this address verified, to link rather than duplicate. */
async function userByVerifiedEmail(db: Db, instanceId: string, email: string) {
  const [row] = await db
    .select({ userId: emailAddresses.userId, status: emailAddresses.verificationStatus })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.instanceId, instanceId), eq(emailAddresses.emailKey, email.toLowerCase())));
  if (row && row.status !== 'verified') throw uniqueness(`${email} is held, unverified, by another user of this instance.`);
  return row?.userId ?? null;
}

/** 409 for an address at a domain another organization verified: not this directory's to hand out. */
async function assertNotAnotherOrganizations(db: Db, dir: Directory, address: string) {
  if (await verifiedByAnotherOrganization(db, dir, address)) {
    throw uniqueness(
      `${emailDomain(address)} is verified by another organization of this instance; this directory cannot create addresses there.`,
    );
  }
}

/** Domain refusals that mean "taken" are SCIM's 409 uniqueness. */
function asUniqueness(err: unknown): never {
  if (isAppError(err) && err.code === 'VALIDATION_FAILED' && err.meta.reason === 'taken') throw uniqueness(err.message);
  if (uniqueViolation(err)) throw uniqueness('That userName or email address is already taken.');
  throw err;
}

async function membershipRow(db: Db, dir: Directory, userId: string) {
  const [m] = await db
    .select()
    .from(organizationMemberships)
    .where(and(eq(organizationMemberships.organizationId, dir.organizationId), eq(organizationMemberships.userId, userId)));
  return m;
}

async function otherMemberships(db: Db, dir: Directory, userId: string) {
  const [row] = await db
    .select({ n: count() })
    .from(organizationMemberships)
    .where(and(eq(organizationMemberships.userId, userId), ne(organizationMemberships.organizationId, dir.organizationId)));
  return Number(row?.n ?? 0);
}

/** Sets the membership's status with organizationMembership.updated and an audit entry. */
async function setMembershipStatus(deps: D, dir: Directory, userId: string, status: 'active' | 'suspended') {
  const m = await membershipRow(deps.db, dir, userId);
  if (!m || m.status === status) return;
  await deps.db.update(organizationMemberships).set({ status, updatedAt: deps.clock.now() }).where(eq(organizationMemberships.id, m.id));
  const [joined] = await membershipsWithUsers(deps.db, dir.instanceId, { organizationId: dir.organizationId, userId });
  await emitEvent(deps, dir.instanceId, 'organizationMembership.updated', membershipView(joined!));
  await auditOrgChange(deps, dir.instanceId, dir.audit, `organization_membership.${status === 'active' ? 'restored' : 'suspended'}`, m.id, {
    organization_id: dir.organizationId,
    user_id: userId,
  });
}

/** The member joins with the role its mapped groups give (the instance's default role when none). */
async function ensureMembership(deps: D, dir: Directory, userId: string) {
  if (await membershipRow(deps.db, dir, userId)) return;
  const role =
    (await mappedRoleFor(deps.db, dir, userId)) ?? (await instanceContext(deps, dir.instanceId)).settings.organization_default_role;
  await addMembership(deps, dir.instanceId, dir.organizationId, { user_id: userId, role }, dir.audit);
}

/**
 * `active: false`: the membership of this organization is suspended; a user the directory
 * owns (ownership.ts) also has every session revoked (sessions_version bumped, so
 * outstanding JWTs fail too), and one it created that belongs nowhere else is banned.
 * Returns whether it banned the user.
 */
async function deactivate(deps: D, dir: Directory, row: { userId: string; createdUser: boolean }, owned: boolean): Promise<boolean> {
  await setMembershipStatus(deps, dir, row.userId, 'suspended');
  if (!owned) return false;
  await revokeUserSessions(deps, dir.instanceId, row.userId, dir.audit);
  if (!row.createdUser || (await otherMemberships(deps.db, dir, row.userId)) > 0) return false;
  await setBanned(deps, dir.instanceId, row.userId, true);
  return true;
}

/** `active: true`: the membership is restored, and a ban this directory placed lifted. */
async function reactivate(deps: D, dir: Directory, row: { userId: string; bannedByDirectory: boolean }) {
  await ensureMembership(deps, dir, row.userId);
  await setMembershipStatus(deps, dir, row.userId, 'active');
  if (row.bannedByDirectory) await setBanned(deps, dir.instanceId, row.userId, false);
}

const directoryColumns = (input: ScimUserInput) => ({
  userName: input.userName,
  userNameKey: input.userName.toLowerCase(),
  externalId: input.externalId,
  displayName: input.displayName,
  emails: input.emails,
  phoneNumbers: input.phoneNumbers,
  addresses: input.addresses,
  title: input.title,
  preferredLanguage: input.preferredLanguage,
  enterprise: input.enterprise,
  active: input.active,
});

/**
 * The address the Latchkey user holds for this directory: userName when it is one, else
 * the primary address of `emails`, else its first that is an address.
 */
function principalAddress(userNameAddress: string | null, emails: ScimEmail[]): string | null {
  if (userNameAddress) return userNameAddress;
  for (const e of [...emails.filter((e) => e.primary), ...emails.filter((e) => !e.primary)]) {
    const parsed = emailAddress.safeParse(e.value);
    if (parsed.success) return parsed.data;
  }
  return null;
}

const addressOf = (userName: string) => emailAddress.safeParse(userName).data ?? null;
const storedPrincipal = (row: ScimUserRow) => principalAddress(addressOf(row.userName), row.emails);

/** userName as the Latchkey username: a login (not an address) that fits the username rules. */
function usernameOf(userName: string): string | null {
  if (addressOf(userName)) return null;
  return usernameRule.safeParse(userName).success ? userName : null;
}

/** The username when no other user of the instance holds it (usernames are instance-wide; userNames per directory). */
async function freeUsername(db: Db, instanceId: string, name: string | null, exceptUserId?: string): Promise<string | null> {
  if (!name) return null;
  const [holder] = await db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.instanceId, instanceId), eq(users.usernameKey, name.toLowerCase())));
  return holder && holder.id !== exceptUserId ? null : name;
}

/**
 * The directory's phone numbers that read as E.164 (spaces, dashes, dots and parentheses
 * dropped). They become unverified numbers of a user the directory created: a directory proves
 * nothing about phones, so a number signs in only once its user verifies it. A number
 * another user of the instance holds is left out; none is removed.
 */
const directoryPhones = (phones: ScimPhone[]) =>
  [...new Set(phones.map((p) => p.value.replace(/[\s().-]/g, '')))].filter((n) => phoneNumberRule.safeParse(n).success);

/**
 * POST /Users. userName is any identifier (RFC 7643 §4.1.1). The user's address is userName
 * when it is one, else the primary address in `emails`. A user of the instance holding that
 * address verified is linked when the address is at one of the organization's verified
 * domains, else 409 uniqueness and nothing changes (a directory never reaches another
 * organization's people). Without such a user, a Latchkey user is created (user.created)
 * with that address (verified by the directory), userName as its username when userName is a
 * login that fits the username rules and no other user holds it, preferredLanguage as its
 * locale, and phoneNumbers unverified; 409 uniqueness when another organization verified the
 * address's domain, 400 when the user would have neither an address nor a username. Either
 * way it becomes a member of the token's organization (organizationMembership.created). 409
 * uniqueness for a userName already in this directory.
 */
export async function createScimUser(deps: D, dir: Directory, body: unknown) {
  const input = parseUserInput(body);
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    // No organization lock here (the membership takes it, until commit): concurrent creates
    // run in parallel up to it, and the unique indexes settle a race on the same userName.
    await assertUserNameFree(tx, dir, input.userName);
    const principal = principalAddress(input.userNameAddress, input.emails);
    let userId = principal ? await userByVerifiedEmail(tx, dir.instanceId, principal) : null;
    const createdUser = userId === null;
    if (userId === null) {
      if (principal) await assertNotAnotherOrganizations(tx, dir, principal);
      const wanted = usernameOf(input.userName);
      const username = await freeUsername(tx, dir.instanceId, wanted);
      if (!principal && !username) {
        throw wanted
          ? uniqueness(`The username ${wanted} belongs to another user of this instance, and emails holds no address for this user.`)
          : invalidValue(
              'This user would have no way to sign in: give an email address in userName or emails, or a userName of 3 to 64 letters, digits, "_", "." or "-".',
            );
      }
      const locale = normalizeLocale(input.preferredLanguage);
      const created = await createUser(
        d,
        dir.instanceId,
        {
          email_address: principal ? [principal] : [],
          ...(username ? { username } : {}),
          ...(input.givenName ? { first_name: input.givenName } : {}),
          ...(input.familyName ? { last_name: input.familyName } : {}),
          ...(locale ? { locale } : {}),
        },
        { verificationStrategy: 'scim', audit: dir.audit, unverifiedPhones: directoryPhones(input.phoneNumbers) },
      ).catch(asUniqueness);
      userId = created.id;
    } else {
      if (!(await atOwnVerifiedDomain(tx, dir, principal!))) {
        throw uniqueness(
          `${principal} belongs to an existing user; this directory links existing users only at its organization’s verified domains.`,
        );
      }
      const [linked] = await tx
        .select({ id: scimUsers.userId })
        .from(scimUsers)
        .where(and(eq(scimUsers.organizationId, dir.organizationId), eq(scimUsers.userId, userId)));
      if (linked) throw uniqueness(`The user holding ${principal} is already in this directory under another userName.`);
      // A linked user keeps the names it has unless the directory gives some.
      if (input.givenName || input.familyName) {
        await updateUser(
          d,
          dir.instanceId,
          userId,
          { ...(input.givenName ? { first_name: input.givenName } : {}), ...(input.familyName ? { last_name: input.familyName } : {}) },
          dir.audit,
        );
      }
    }
    const now = deps.clock.now();
    await tx
      .insert(scimUsers)
      .values({
        organizationId: dir.organizationId,
        userId,
        instanceId: dir.instanceId,
        ...directoryColumns(input),
        createdUser,
        createdAt: now,
        updatedAt: now,
      })
      .catch(asUniqueness);
    await ensureMembership(d, dir, userId);
    if (!input.active) {
      // Created, or linked at a verified domain: owned either way.
      const banned = await deactivate(d, dir, { userId, createdUser }, true);
      if (banned)
        await tx
          .update(scimUsers)
          .set({ bannedByDirectory: true })
          .where(and(eq(scimUsers.organizationId, dir.organizationId), eq(scimUsers.userId, userId)));
    }
    return findScimUser(tx, dir, userId);
  });
}

/**
 * The Latchkey user's names, and its locale when preferredLanguage changes to a supported
 * language, follow the directory's (an owned user's only); user.updated only when one changes.
 */
async function updateProfile(deps: D, dir: Directory, input: ScimUserInput, row: ScimUserRow) {
  const patch: { first_name?: string | null; last_name?: string | null; locale?: string } = {};
  if (input.givenName !== row.firstName || input.familyName !== row.lastName) {
    patch.first_name = input.givenName;
    patch.last_name = input.familyName;
  }
  const locale = input.preferredLanguage !== row.preferredLanguage ? normalizeLocale(input.preferredLanguage) : null;
  if (locale && locale !== row.locale) patch.locale = locale;
  if (Object.keys(patch).length === 0) return false;
  await updateUser(deps, dir.instanceId, row.userId, patch, dir.audit);
  return true;
}

/**
 * A new address for a user this directory created (from userName, or from emails when
 * userName is a login): the new address (verified by the directory) becomes the primary one
 * and the old one goes.
 */
async function changeAddress(deps: D, dir: Directory, row: ScimUserRow, before: string | null, address: string) {
  const key = address.toLowerCase();
  const holder = await userByVerifiedEmail(deps.db, dir.instanceId, address);
  if (holder && holder !== row.userId) throw uniqueness(`${address} belongs to another user of this instance.`);
  if (!holder) {
    await assertNotAnotherOrganizations(deps.db, dir, address);
    const now = deps.clock.now();
    const id = newId('idn');
    await deps.db
      .insert(emailAddresses)
      .values({
        id,
        instanceId: dir.instanceId,
        userId: row.userId,
        emailAddress: address,
        emailKey: key,
        verificationStatus: 'verified',
        verificationStrategy: 'scim',
        createdAt: now,
        updatedAt: now,
      })
      .catch(asUniqueness);
    await updateUser(deps, dir.instanceId, row.userId, { primary_email_address_id: id }, dir.audit);
  }
  if (before)
    await deps.db
      .delete(emailAddresses)
      .where(
        and(eq(emailAddresses.userId, row.userId), eq(emailAddresses.emailKey, before.toLowerCase()), ne(emailAddresses.emailKey, key)),
      );
}

/**
 * A user this directory created keeps userName as its username while it is a login: a new
 * login replaces it (left out when another user holds it and the user has an address to sign
 * in with). A username the user or an admin changed since is theirs and stays.
 */
async function followUsername(deps: D, dir: Directory, row: ScimUserRow, userName: string, hasAddress: boolean) {
  const managed = row.username === null || row.username === usernameOf(row.userName);
  if (!managed) return false;
  const next = await freeUsername(deps.db, dir.instanceId, usernameOf(userName), row.userId);
  if (next === row.username || (next === null && !hasAddress)) return false;
  await updateUser(deps, dir.instanceId, row.userId, { username: next }, dir.audit);
  return true;
}

/** PUT /Users/:id (and the result of a PATCH): the representation replaces the stored one. */
export async function replaceScimUser(deps: D, dir: Directory, id: string, body: unknown) {
  const input = parseUserInput(body);
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const row = await findScimUser(tx, dir, id, true);
    checkIfMatch(dir, row.version);
    const userNameChanged = input.userName.toLowerCase() !== row.userNameKey;
    if (input.userName !== row.userName) await assertUserNameFree(tx, dir, input.userName, row.userId);
    let changed = false;
    if (row.createdUser) {
      const before = storedPrincipal(row);
      const after = principalAddress(input.userNameAddress, input.emails);
      if (after && after.toLowerCase() !== before?.toLowerCase()) await changeAddress(d, dir, row, before, after);
      if (userNameChanged) changed = await followUsername(d, dir, row, input.userName, (after ?? before) !== null);
    } else if (userNameChanged && addressOf(row.userName)) {
      throw scimError(
        'VALIDATION_FAILED',
        'mutability',
        'userName is the email address of a user this directory linked rather than created; it cannot be changed here.',
      );
    }
    // New numbers before any user.updated below, so the event carries them.
    if (row.createdUser && JSON.stringify(input.phoneNumbers) !== JSON.stringify(row.phoneNumbers))
      await insertUnverifiedPhones(
        d.db,
        d.clock.now(),
        { instanceId: dir.instanceId, userId: row.userId, strategy: 'scim' },
        directoryPhones(input.phoneNumbers),
      );
    const owned = await ownsUser(tx, dir, row);
    // A user the directory does not own keeps its own names; the rest of the resource still applies.
    if (owned && (await updateProfile(d, dir, input, row))) changed = true;
    const stored = directoryColumns(input);
    const directoryChanged = (Object.keys(stored) as (keyof typeof stored)[]).some(
      (k) => JSON.stringify(stored[k]) !== JSON.stringify(row[k]),
    );
    if (!directoryChanged && !changed) return row;
    let bannedByDirectory = row.bannedByDirectory;
    if (row.active && !input.active) bannedByDirectory = await deactivate(d, dir, row, owned);
    if (!row.active && input.active) {
      await reactivate(d, dir, row);
      bannedByDirectory = false;
    }
    // Directory-only attributes changed: the user's webhook consumers still hear of it.
    if (!changed) await updateUser(d, dir.instanceId, row.userId, {}, dir.audit);
    await tx
      .update(scimUsers)
      .set({ ...stored, bannedByDirectory, version: sql`${scimUsers.version} + 1`, updatedAt: deps.clock.now() })
      .where(and(eq(scimUsers.organizationId, dir.organizationId), eq(scimUsers.userId, row.userId)));
    return findScimUser(tx, dir, row.userId);
  });
}

const USER_SHAPE: PatchShape = { multiValued: new Set(['emails', 'phonenumbers', 'addresses']), extensions: EXTENSIONS, core: USER_SCHEMA };

/** PATCH /Users/:id: the operations are applied to the current representation, which then replaces it. */
export async function patchScimUser(deps: D, dir: Directory, id: string, body: PatchBody) {
  const current = await findScimUser(deps.db, dir, id);
  checkIfMatch(dir, current.version);
  const next = applyPatch(userResource(current, dir), body, USER_SHAPE);
  // A concurrent change between the read and the write is caught by the version.
  return replaceScimUser(deps, { ...dir, ifMatch: etagOf(current.version) }, id, next);
}

/**
 * DELETE /Users/:id: the membership goes (organizationMembership.deleted) with the user's
 * groups of this directory; a user this directory created that belongs nowhere else is
 * deleted (user.deleted).
 */
export async function deleteScimUser(deps: D, dir: Directory, id: string) {
  await deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const row = await findScimUser(tx, dir, id, true);
    checkIfMatch(dir, row.version);
    const org = await loadOrganization(tx, dir.instanceId, dir.organizationId, { lock: true });
    if (await membershipRow(tx, dir, row.userId)) {
      // The directory is the source of truth for its members: the last-admin rule does not hold it back.
      const view = await removeMembershipInTx(d, dir.instanceId, org, row.userId, { force: true });
      await auditOrgChange(d, dir.instanceId, dir.audit, 'organization_membership.deleted', view.id, {
        organization_id: org.id,
        user_id: row.userId,
      });
    }
    await tx
      .delete(scimGroupMembers)
      .where(and(eq(scimGroupMembers.organizationId, dir.organizationId), eq(scimGroupMembers.userId, row.userId)));
    await tx.delete(scimUsers).where(and(eq(scimUsers.organizationId, dir.organizationId), eq(scimUsers.userId, row.userId)));
    if (row.createdUser && (await otherMemberships(tx, dir, row.userId)) === 0) {
      await deleteUser(d, dir.instanceId, row.userId);
      await auditOrgChange(d, dir.instanceId, dir.audit, 'user.deleted', row.userId, { organization_id: org.id });
    }
  });
}

/** Rejects an id that names no user of this directory (group members). */
export async function assertDirectoryUsers(db: Db, dir: Directory, ids: string[]) {
  if (ids.length === 0) return;
  const found = await db
    .select({ id: scimUsers.userId })
    .from(scimUsers)
    .where(and(eq(scimUsers.organizationId, dir.organizationId), inArray(scimUsers.userId, ids)));
  const known = new Set(found.map((f) => f.id));
  const missing = ids.find((i) => !known.has(i));
  if (missing) throw invalidValue(`members: ${missing} is not a user of this directory.`);
}
