import { and, asc, eq, inArray, ne, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { emailAddresses, organizationMemberships, organizations, roles, sessions, users } from '../db/schema';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import { newId } from '../db/ids';
import { cursorList, lightList, newestFirst, oldestFirst, type Keyset } from '../http/cursor-list';
import { instanceContext } from '../instances/instances';
import { assertMetadata, mergeMetadataChecked } from '../http/metadata';
import { loadOrganization, organizationView, type OrganizationRow } from './organization-view';
import { isMemberSql, pageOfMembershipsSql } from './statements';
import { auditOrgChange, type OrgAuditContext } from './audit';
import { ADMIN_PERMISSION, assertRole, ensureBuiltIns, rolesGranting } from './roles';
import { updateSessions } from '../sessions/session-state';
import { userSearch } from '../db/user-search';

type MembershipRow = typeof organizationMemberships.$inferSelect;
type D = Pick<Deps, 'db' | 'clock'>;

interface MembershipJoined {
  membership: MembershipRow;
  organization: OrganizationRow;
  membersCount: number;
  user: { id: string; firstName: string | null; lastName: string | null; username: string | null; email: string | null };
  roleName: string | null;
  permissions: string[] | null;
}

/** What every member sees of a member or a requester. */
export const publicUserData = (u: MembershipJoined['user']) => ({
  user_id: u.id,
  first_name: u.firstName,
  last_name: u.lastName,
  username: u.username,
  identifier: u.email ?? u.username ?? u.id,
  image_url: null,
  has_image: false,
});

export function membershipView(m: MembershipJoined) {
  return {
    object: 'organization_membership' as const,
    id: m.membership.id,
    organization: organizationView(m.organization, m.membersCount),
    public_user_data: publicUserData(m.user),
    role: m.membership.role,
    role_name: m.roleName,
    permissions: [...(m.permissions ?? [])].sort(),
    public_metadata: m.membership.publicMetadata,
    private_metadata: m.membership.privateMetadata,
    created_at: m.membership.createdAt,
    updated_at: m.membership.updatedAt,
  };
}
export type MembershipView = ReturnType<typeof membershipView>;

/** A membership as its member sees it on the FAPI: no private metadata anywhere. */
export function publicMembershipView(m: MembershipView) {
  const { private_metadata: _m, organization, ...rest } = m;
  const { private_metadata: _o, ...org } = organization;
  return { ...rest, organization: org };
}

interface MembershipFilter {
  organizationId?: string;
  userId?: string;
  roles?: string[];
  /** Members a person searching for this means (as GET /v1/users?query=: prefixes of names, addresses, usernames, phones); with organizationId only. */
  query?: string;
  limit?: number;
  page?: Keyset;
}

/**
 * The statement of membershipsWithUsers, unexecuted (query-plans.test.ts explains it). With one
 * organization its member count is one uncorrelated subquery (PostgreSQL runs it once), not a
 * count per row; a member search is the users' bounded index ranges (userSearch), each range
 * narrowed to the organization's members inside its bound.
 */
export function membershipsStatement(db: Db, instanceId: string, q: Omit<MembershipFilter, 'limit' | 'page'>, page?: Keyset) {
  const filters: (SQL | undefined)[] = [eq(organizationMemberships.instanceId, instanceId)];
  const orgId = q.organizationId;
  if (orgId) filters.push(eq(organizationMemberships.organizationId, orgId));
  if (q.userId) filters.push(eq(organizationMemberships.userId, q.userId));
  if (q.roles) filters.push(inArray(organizationMemberships.role, q.roles));
  if (q.query && orgId) {
    const found = sql`${organizationMemberships.userId} = any(array(${userSearch(instanceId, q.query, isMemberSql(orgId))}))`;
    // With a page, its memberships are picked before any join: a broad search (a domain every member
    // shares) finds a thousand, and joining each to its user, address and role before keeping the
    // first page's was half the statement's time at 100,000 members.
    filters.push(page ? pageOfMembershipsSql(and(...filters, found, page.after), page.orderBy, page.limit) : found);
  }
  if (page?.after) filters.push(page.after);
  return db
    .select({
      membership: organizationMemberships,
      organization: organizations,
      membersCount: organizations.membersCount,
      user: {
        id: users.id,
        firstName: users.firstName,
        lastName: users.lastName,
        username: users.username,
        email: emailAddresses.emailAddress,
      },
      roleName: roles.name,
      permissions: roles.permissions,
    })
    .from(organizationMemberships)
    .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
    .innerJoin(users, eq(users.id, organizationMemberships.userId))
    .leftJoin(emailAddresses, eq(emailAddresses.id, users.primaryEmailAddressId))
    .leftJoin(roles, and(eq(roles.instanceId, organizationMemberships.instanceId), eq(roles.key, organizationMemberships.role)))
    .where(and(...filters))
    .orderBy(page?.orderBy ?? asc(organizationMemberships.id));
}

/** Memberships with their user, organization and role, in one query. */
export async function membershipsWithUsers(db: Db, instanceId: string, q: MembershipFilter): Promise<MembershipJoined[]> {
  const query = membershipsStatement(db, instanceId, q, q.page);
  const limit = q.page?.limit ?? q.limit;
  const rows = limit !== undefined ? await query.limit(limit) : await query;
  return rows.map((r) => ({ ...r, membersCount: Number(r.membersCount) }));
}

async function membershipOf(db: Db, instanceId: string, organizationId: string, userId: string): Promise<MembershipJoined | undefined> {
  const [m] = await membershipsWithUsers(db, instanceId, { organizationId, userId });
  return m;
}

/**
 * Whether removing or demoting this member would leave the organization with nobody
 * able to manage members (the last admin): 409 CONFLICT, reason `last_admin`.
 */
async function assertNotLastAdmin(db: Db, instanceId: string, m: MembershipRow, nextRole: string | null) {
  const adminRoles = await rolesGranting(db, instanceId, ADMIN_PERMISSION);
  if (!adminRoles.includes(m.role)) return;
  if (nextRole !== null && adminRoles.includes(nextRole)) return;
  const [other] = await db
    .select({ id: organizationMemberships.id })
    .from(organizationMemberships)
    .where(
      and(
        eq(organizationMemberships.organizationId, m.organizationId),
        ne(organizationMemberships.id, m.id),
        inArray(organizationMemberships.role, adminRoles),
      ),
    )
    .limit(1);
  if (!other) {
    throw new AppError('CONFLICT', {
      message: 'An organization keeps at least one admin: make another member admin first.',
      meta: { reason: 'last_admin' },
    });
  }
}

/** 403 FORBIDDEN (reason `membership_limit`) when the organization is full. `extra`: seats already promised (pending invitations). */
export async function assertSeatAvailable(db: Db, org: OrganizationRow, extra = 0) {
  if (org.maxAllowedMemberships === 0) return;
  const [row] = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(organizationMemberships)
    .where(eq(organizationMemberships.organizationId, org.id));
  if (Number(row?.n ?? 0) + extra >= org.maxAllowedMemberships) {
    throw new AppError('FORBIDDEN', {
      message: `This organization is limited to ${org.maxAllowedMemberships} members.`,
      meta: { reason: 'membership_limit', max_allowed_memberships: org.maxAllowedMemberships },
    });
  }
}

/**
 * Adds a member inside the caller's transaction, with the organization row locked by
 * the caller or here. organizationMembership.created.
 */
export async function addMembershipInTx(
  d: D,
  instanceId: string,
  org: OrganizationRow,
  input: {
    userId: string;
    role: string;
    roleParam?: string;
    publicMetadata?: Record<string, unknown>;
    privateMetadata?: Record<string, unknown>;
  },
): Promise<MembershipView> {
  assertMetadata('public_metadata', input.publicMetadata ?? {});
  assertMetadata('private_metadata', input.privateMetadata ?? {});
  await d.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, org.id)).for('no key update');
  const [user] = await d.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, input.userId), eq(users.instanceId, instanceId)));
  if (!user) throw validationError('user_id', 'not_found', 'No user was found with that user_id.');
  await assertRole(d.db, instanceId, input.role, input.roleParam ?? 'role');
  if (await membershipOf(d.db, instanceId, org.id, input.userId)) {
    throw new AppError('CONFLICT', {
      message: 'This user is already a member of the organization.',
      meta: { reason: 'already_member', param: 'user_id' },
    });
  }
  await assertSeatAvailable(d.db, org);
  const now = d.clock.now();
  await d.db.insert(organizationMemberships).values({
    id: newId('orgmem'),
    instanceId,
    organizationId: org.id,
    userId: input.userId,
    role: input.role,
    publicMetadata: input.publicMetadata ?? {},
    privateMetadata: input.privateMetadata ?? {},
    createdAt: now,
    updatedAt: now,
  });
  const view = membershipView((await membershipOf(d.db, instanceId, org.id, input.userId))!);
  await emitEvent(d, instanceId, 'organizationMembership.created', view);
  return view;
}

/**
 * Removes a member inside the caller's transaction; organizationMembership.deleted.
 * `force` skips the last-admin rule (the organization or the user is being deleted).
 * The user's sessions that had the organization active drop it.
 */
export async function removeMembershipInTx(
  d: D & Pick<Deps, 'cacheInvalidation'>,
  instanceId: string,
  org: OrganizationRow,
  userId: string,
  opts: { force?: boolean } = {},
) {
  const m = await membershipOf(d.db, instanceId, org.id, userId);
  if (!m) throw notFound('membership');
  if (!opts.force) await assertNotLastAdmin(d.db, instanceId, m.membership, null);
  await d.db.delete(organizationMemberships).where(eq(organizationMemberships.id, m.membership.id));
  await updateSessions(
    d,
    { lastActiveOrganizationId: null },
    and(eq(sessions.userId, userId), eq(sessions.lastActiveOrganizationId, org.id)),
  );
  const view = { ...membershipView({ ...m, membersCount: m.membersCount - 1 }), deleted: true as const };
  await emitEvent(d, instanceId, 'organizationMembership.deleted', view);
  return view;
}

export async function addMembership(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  orgIdOrSlug: string,
  input: { user_id: string; role?: string; public_metadata?: Record<string, unknown>; private_metadata?: Record<string, unknown> },
  auditCtx: OrgAuditContext,
) {
  await ensureBuiltIns(deps, instanceId);
  const role = input.role ?? (await instanceContext(deps, instanceId)).settings.organization_default_role;
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug, { lock: true });
    const d = { db: tx, clock: deps.clock };
    const view = await addMembershipInTx(d, instanceId, org, {
      userId: input.user_id,
      role,
      publicMetadata: input.public_metadata,
      privateMetadata: input.private_metadata,
    });
    await auditOrgChange(d, instanceId, auditCtx, 'organization_membership.created', view.id, {
      organization_id: org.id,
      user_id: input.user_id,
      role,
    });
    return view;
  });
}

/** Changes a member's role or metadata (deep-merged); the last admin cannot be demoted. organizationMembership.updated. */
export async function updateMembership(
  deps: D,
  instanceId: string,
  orgIdOrSlug: string,
  userId: string,
  input: { role?: string; public_metadata?: Record<string, unknown>; private_metadata?: Record<string, unknown> },
  auditCtx: OrgAuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug, { lock: true });
    const m = await membershipOf(tx, instanceId, org.id, userId);
    if (!m) throw notFound('membership');
    const patch: Partial<MembershipRow> = { updatedAt: deps.clock.now() };
    if (input.role !== undefined && input.role !== m.membership.role) {
      await assertRole(tx, instanceId, input.role);
      await assertNotLastAdmin(tx, instanceId, m.membership, input.role);
      patch.role = input.role;
      await auditOrgChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'organization_membership.role_changed', m.membership.id, {
        organization_id: org.id,
        user_id: userId,
        from: m.membership.role,
        to: input.role,
      });
    }
    if (input.public_metadata)
      patch.publicMetadata = mergeMetadataChecked('public_metadata', m.membership.publicMetadata, input.public_metadata);
    if (input.private_metadata)
      patch.privateMetadata = mergeMetadataChecked('private_metadata', m.membership.privateMetadata, input.private_metadata);
    await tx.update(organizationMemberships).set(patch).where(eq(organizationMemberships.id, m.membership.id));
    const view = membershipView((await membershipOf(tx, instanceId, org.id, userId))!);
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'organizationMembership.updated', view);
    return view;
  });
}

export async function removeMembership(
  deps: D & Pick<Deps, 'cacheInvalidation'>,
  instanceId: string,
  orgIdOrSlug: string,
  userId: string,
  auditCtx: OrgAuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock, cacheInvalidation: deps.cacheInvalidation };
    const org = await loadOrganization(tx, instanceId, orgIdOrSlug, { lock: true });
    const view = await removeMembershipInTx(d, instanceId, org, userId);
    await auditOrgChange(d, instanceId, auditCtx, 'organization_membership.deleted', view.id, {
      organization_id: org.id,
      user_id: userId,
      role: view.role,
    });
    return view;
  });
}

/** Every membership of a user, each removed with organizationMembership.deleted; call inside the user's deletion. */
export async function removeUserMemberships(d: D & Pick<Deps, 'cacheInvalidation'>, instanceId: string, userId: string) {
  const list = await membershipsWithUsers(d.db, instanceId, { userId });
  for (const m of list) {
    await d.db.select({ id: organizations.id }).from(organizations).where(eq(organizations.id, m.organization.id)).for('no key update');
    await removeMembershipInTx(d, instanceId, m.organization, userId, { force: true });
  }
}

/** The members of one organization, oldest first, in the light envelope (`limit` rows, `starting_after` a membership id). */
export async function listOrganizationMemberships(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  orgIdOrSlug: string,
  q: { limit: number; starting_after?: string; role?: string[]; query?: string },
) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  const rows = (page: Keyset) => membershipsWithUsers(deps.db, instanceId, { organizationId: org.id, roles: q.role, query: q.query, page });
  return lightList(q, oldestFirst(organizationMemberships.id), rows, membershipView);
}

/** A user's memberships across organizations, newest first (cursor envelope). */
export async function listUserMemberships(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  userId: string,
  q: { limit: number; starting_after?: string },
) {
  const [user] = await deps.db
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)));
  if (!user) throw notFound('user');
  const rows = (page: Keyset) => membershipsWithUsers(deps.db, instanceId, { userId, page });
  return cursorList(q, newestFirst(organizationMemberships.id), rows, membershipView, (r) => r.membership.id);
}

/** The membership of a user in an organization with its permissions, for FAPI checks and JWT claims; null when none or suspended. */
export async function memberAccess(db: Db, instanceId: string, organizationId: string, userId: string) {
  const m = await membershipOf(db, instanceId, organizationId, userId);
  if (!m || m.membership.status === 'suspended') return null;
  return { membership: m, role: m.membership.role, permissions: [...(m.permissions ?? [])].sort() };
}
