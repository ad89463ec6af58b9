import { and, asc, desc, eq, isNotNull, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { organizationMemberships, roles, scimGroupMembers, scimGroups } from '../db/schema';
import { isAppError } from '../http/errors';
import { instanceContext } from '../instances/instances';
import { updateMembership } from '../organizations/memberships';
import type { Directory } from './directory';

/**
 * Group → role mapping: a member of mapped groups holds the highest of their roles, where
 * a role granting more permissions is higher (ties: the role key's order). Null when none
 * of the user's groups is mapped.
 */
export async function mappedRoleFor(db: Db, dir: Pick<Directory, 'instanceId' | 'organizationId'>, userId: string): Promise<string | null> {
  const [top] = await db
    .select({ key: roles.key })
    .from(scimGroupMembers)
    .innerJoin(scimGroups, eq(scimGroups.id, scimGroupMembers.groupId))
    .innerJoin(roles, and(eq(roles.instanceId, scimGroups.instanceId), eq(roles.key, scimGroups.role)))
    .where(and(eq(scimGroupMembers.organizationId, dir.organizationId), eq(scimGroupMembers.userId, userId), isNotNull(scimGroups.role)))
    .orderBy(desc(sql`jsonb_array_length(${roles.permissions})`), asc(roles.key))
    .limit(1);
  return top?.key ?? null;
}

/**
 * Brings members' roles in line with their mapped groups (the instance's default role for
 * one left in no mapped group) through the memberships domain, so each change emits
 * organizationMembership.updated and is audited. A change the last-admin rule refuses is
 * left as it is.
 */
export async function syncMappedRoles(deps: Deps, dir: Directory, userIds: Iterable<string>) {
  const fallback = (await instanceContext(deps, dir.instanceId)).settings.organization_default_role;
  for (const userId of new Set(userIds)) {
    const [m] = await deps.db
      .select({ role: organizationMemberships.role })
      .from(organizationMemberships)
      .where(and(eq(organizationMemberships.organizationId, dir.organizationId), eq(organizationMemberships.userId, userId)));
    if (!m) continue;
    const role = (await mappedRoleFor(deps.db, dir, userId)) ?? fallback;
    if (role === m.role) continue;
    try {
      await updateMembership(deps, dir.instanceId, dir.organizationId, userId, { role }, dir.audit);
    } catch (err) {
      if (!(isAppError(err) && err.code === 'CONFLICT')) throw err;
    }
  }
}
