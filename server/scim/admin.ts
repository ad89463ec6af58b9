import { and, eq } from 'drizzle-orm';
import type { Deps } from '../deps';
import { scimGroupMembers, scimGroups, scimUsers } from '../db/schema';
import type { AuditContext } from '../http/actor';
import { notFound } from '../http/errors';
import { cursorList, oldestFirst, tableRows, type Keyset } from '../http/cursor-list';
import { auditOrgChange } from '../organizations/audit';
import { loadOrganization } from '../organizations/organization-view';
import { assertRole, ensureBuiltIns } from '../organizations/roles';
import { syncMappedRoles } from './roles';
import { groupMembersCount } from './statements';

/**
 * An organization's directory as the backend API and the console see it: the users and
 * groups its identity provider provisioned, and the group → role mappings.
 */
type GroupRow = typeof scimGroups.$inferSelect;
type UserRow = typeof scimUsers.$inferSelect;

const directoryGroupView = (g: GroupRow & { membersCount: number }) => ({
  object: 'scim_group' as const,
  id: g.id,
  organization_id: g.organizationId,
  display_name: g.displayName,
  external_id: g.externalId,
  role: g.role,
  members_count: g.membersCount,
  created_at: g.createdAt,
  updated_at: g.updatedAt,
});

const directoryUserView = (u: UserRow) => ({
  object: 'scim_user' as const,
  id: u.userId,
  user_id: u.userId,
  organization_id: u.organizationId,
  user_name: u.userName,
  external_id: u.externalId,
  display_name: u.displayName,
  active: u.active,
  created_by_directory: u.createdUser,
  created_at: u.createdAt,
  updated_at: u.updatedAt,
});

type ListQ = { organization_id?: string; limit: number; starting_after?: string };

/** The named organization's id (404 for another instance's), or null for every organization of the instance. */
const organizationOf = async (deps: Pick<Deps, 'db'>, instanceId: string, idOrSlug?: string) =>
  idOrSlug ? (await loadOrganization(deps.db, instanceId, idOrSlug)).id : null;

/** Groups of an organization's directory (or of every directory of the instance), oldest first (cursor envelope). */
export async function listDirectoryGroups(deps: Pick<Deps, 'db'>, instanceId: string, q: ListQ) {
  const orgId = await organizationOf(deps, instanceId, q.organization_id);
  const scope = orgId ? eq(scimGroups.organizationId, orgId) : eq(scimGroups.instanceId, instanceId);
  const rows = (k: Keyset) =>
    deps.db
      .select({ g: scimGroups, membersCount: groupMembersCount })
      .from(scimGroups)
      .where(and(scope, k.after))
      .orderBy(k.orderBy)
      .limit(k.limit);
  return cursorList(
    q,
    oldestFirst(scimGroups.id),
    rows,
    (r) => directoryGroupView({ ...r.g, membersCount: Number(r.membersCount) }),
    (r) => r.g.id,
  );
}

/** Users of an organization's directory (or of every directory of the instance), oldest first (cursor envelope on the user id). */
export async function listDirectoryUsers(deps: Pick<Deps, 'db'>, instanceId: string, q: ListQ) {
  const orgId = await organizationOf(deps, instanceId, q.organization_id);
  const scope = orgId ? eq(scimUsers.organizationId, orgId) : eq(scimUsers.instanceId, instanceId);
  return cursorList(q, oldestFirst(scimUsers.userId), tableRows(deps.db, scimUsers, scope), directoryUserView, (r) => r.userId);
}

/**
 * Maps a directory group to an organization role (null: unmapped). Its members' roles are
 * recomputed at once: organizationMembership.updated for each one that changes.
 */
export async function setGroupRole(
  deps: Deps,
  instanceId: string,
  groupId: string,
  role: string | null,
  audit: AuditContext,
  /** The group must be this organization's (console paths). */
  organizationId?: string,
) {
  if (role !== null) await ensureBuiltIns(deps, instanceId);
  return deps.db.transaction(async (tx) => {
    const d = { ...deps, db: tx };
    const [group] = await tx
      .select()
      .from(scimGroups)
      .where(
        and(
          eq(scimGroups.id, groupId),
          eq(scimGroups.instanceId, instanceId),
          organizationId ? eq(scimGroups.organizationId, organizationId) : undefined,
        ),
      )
      .for('update');
    if (!group) throw notFound('SCIM group');
    if (role !== null) await assertRole(tx, instanceId, role);
    if (group.role !== role) {
      await tx.update(scimGroups).set({ role, updatedAt: deps.clock.now() }).where(eq(scimGroups.id, group.id));
      await auditOrgChange(d, instanceId, audit, 'scim_group.role_mapped', group.id, {
        organization_id: group.organizationId,
        from: group.role,
        to: role,
      });
      const members = await tx
        .select({ userId: scimGroupMembers.userId })
        .from(scimGroupMembers)
        .where(eq(scimGroupMembers.groupId, group.id));
      const dir = { instanceId, organizationId: group.organizationId, baseUrl: '', audit, ifMatch: null };
      await syncMappedRoles(
        d,
        dir,
        members.map((m) => m.userId),
      );
    }
    const [row] = await tx.select({ g: scimGroups, membersCount: groupMembersCount }).from(scimGroups).where(eq(scimGroups.id, group.id));
    return directoryGroupView({ ...row!.g, membersCount: Number(row!.membersCount) });
  });
}
