import { and, eq, inArray, sql } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { uniqueViolation } from '../db/errors';
import { instances, organizationInvitations, organizationMemberships, permissions, roles } from '../db/schema';
import { emitEvent } from '../events/events';
import { AppError, notFound, validationError } from '../http/errors';
import { lightList, oldestFirst, tableRows } from '../http/cursor-list';
import { isId, newId } from '../db/ids';
import { instanceSettings } from '../instances/settings';
import { auditOrgChange, type OrgAuditContext } from './audit';

/**
 * Roles and permissions of an instance. Permissions are `org:<feature>:<action>` keys;
 * the system ones (`org:sys_…`) gate what members may do on the FAPI. Roles are named
 * sets of permission keys; `org:admin` (every system permission) and `org:member`
 * (read memberships) are built in. Both are seeded lazily, the first time an instance
 * touches roles or organizations, so instances created before organizations existed
 * get them too.
 */
const SYSTEM_PERMISSIONS = [
  {
    key: 'org:sys_profile:manage',
    name: 'Manage organization',
    description: 'Update the organization’s name, slug, image and public metadata.',
  },
  { key: 'org:sys_profile:delete', name: 'Delete organization', description: 'Delete the organization.' },
  { key: 'org:sys_memberships:read', name: 'Read members', description: 'See the members of the organization.' },
  { key: 'org:sys_memberships:manage', name: 'Manage members', description: 'Invite, remove and change the role of members.' },
  { key: 'org:sys_domains:read', name: 'Read domains', description: 'See the organization’s domains.' },
  { key: 'org:sys_domains:manage', name: 'Manage domains', description: 'Add, verify and remove the organization’s domains.' },
  { key: 'org:sys_api_keys:manage', name: 'Manage API keys', description: 'List, create and revoke the organization’s API keys.' },
  {
    key: 'org:sys_portal:manage',
    name: 'Open the admin portal',
    description: 'Get admin portal links to set up the organization’s SSO, directory sync and domains.',
  },
] as const;
export type SystemPermission = (typeof SYSTEM_PERMISSIONS)[number]['key'];

export const ADMIN_ROLE = 'org:admin';
const MEMBER_ROLE = 'org:member';
/** Whoever holds this permission counts as an admin for the last-admin rule. */
export const ADMIN_PERMISSION: SystemPermission = 'org:sys_memberships:manage';

const BUILT_IN_ROLES = [
  { key: ADMIN_ROLE, name: 'Admin', description: 'Every system permission.', permissions: SYSTEM_PERMISSIONS.map((p) => p.key) },
  { key: MEMBER_ROLE, name: 'Member', description: 'Sees the other members.', permissions: ['org:sys_memberships:read'] },
];

export const PERMISSION_KEY_RE = /^org:[a-z0-9_]{1,64}:[a-z0-9_]{1,64}$/;
export const ROLE_KEY_RE = /^org:[a-z0-9_]{1,64}$/;

type D = Pick<Deps, 'db' | 'clock'>;
type RoleRow = typeof roles.$inferSelect;
type PermissionRow = typeof permissions.$inferSelect;

const permissionView = (p: PermissionRow) => ({
  object: 'permission' as const,
  id: p.id,
  key: p.key,
  name: p.name,
  description: p.description,
  type: p.system ? ('system' as const) : ('user' as const),
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});
const roleView = (r: RoleRow) => ({
  object: 'role' as const,
  id: r.id,
  key: r.key,
  name: r.name,
  description: r.description,
  permissions: [...r.permissions].sort(),
  is_system: r.system,
  created_at: r.createdAt,
  updated_at: r.updatedAt,
});
/** Inserts the system permissions and built-in roles an instance lacks; idempotent and race-safe. */
export async function ensureBuiltIns(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string) {
  const seeded = deps.caches.get<true>('org-builtins', 60 * 60_000);
  const now = deps.clock.now();
  if (seeded.get(instanceId, now)) return;
  await deps.db
    .insert(permissions)
    .values(SYSTEM_PERMISSIONS.map((p) => ({ id: newId('perm'), instanceId, ...p, system: true, createdAt: now, updatedAt: now })))
    .onConflictDoNothing();
  await deps.db
    .insert(roles)
    .values(BUILT_IN_ROLES.map((r) => ({ id: newId('role'), instanceId, ...r, system: true, createdAt: now, updatedAt: now })))
    .onConflictDoNothing();
  // A transaction could still roll the rows back: remember only what is committed.
  if (!(deps.db instanceof PgTransaction)) seeded.set(instanceId, true, now);
}

/** A role key that must exist in the instance (422 naming `param` otherwise). */
export async function assertRole(db: Db, instanceId: string, key: string, param = 'role'): Promise<RoleRow> {
  const [row] = await db
    .select()
    .from(roles)
    .where(and(eq(roles.instanceId, instanceId), eq(roles.key, key)));
  if (!row) throw validationError(param, 'unknown_role', `${param} names no role of this instance.`);
  return row;
}

/** The key of a role named by its id (`role_…`) or its key, as Clerk's `…_role_id` fields do; 422 `unknown_role` naming `param` when the instance has none. */
export async function roleKeyByIdOrKey(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  ref: string,
  param: string,
): Promise<string> {
  await ensureBuiltIns(deps, instanceId);
  if (!isId('role', ref)) return (await assertRole(deps.db, instanceId, ref, param)).key;
  const [row] = await deps.db
    .select({ key: roles.key })
    .from(roles)
    .where(and(eq(roles.instanceId, instanceId), eq(roles.id, ref)));
  if (!row) throw validationError(param, 'unknown_role', `${param} names no role of this instance.`);
  return row.key;
}

/** Role keys whose permissions include `permission`. */
export async function rolesGranting(db: Db, instanceId: string, permission: string): Promise<string[]> {
  const rows = await db
    .select({ key: roles.key })
    .from(roles)
    .where(and(eq(roles.instanceId, instanceId), sql`${roles.permissions} @> ${JSON.stringify([permission])}::jsonb`));
  return rows.map((r) => r.key);
}

// --- Permissions ---

async function loadPermission(db: Db, instanceId: string, id: string) {
  const [row] = await db
    .select()
    .from(permissions)
    .where(and(eq(permissions.instanceId, instanceId), eq(permissions.id, id)));
  if (!row) throw notFound('permission');
  return row;
}

export async function listPermissions(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  q: { limit: number; starting_after?: string },
) {
  await ensureBuiltIns(deps, instanceId);
  return lightList(q, oldestFirst(permissions.id), tableRows(deps.db, permissions, eq(permissions.instanceId, instanceId)), permissionView);
}

export async function getPermission(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string, id: string) {
  await ensureBuiltIns(deps, instanceId);
  return permissionView(await loadPermission(deps.db, instanceId, id));
}

const takenKey =
  (what: string) =>
  (err: unknown): never => {
    if (uniqueViolation(err)) throw validationError('key', 'taken', `A ${what} with that key already exists.`);
    throw err;
  };

export async function createPermission(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  input: { key: string; name: string; description?: string },
  auditCtx: OrgAuditContext,
) {
  await ensureBuiltIns(deps, instanceId);
  if (input.key.startsWith('org:sys_'))
    throw validationError('key', 'reserved', 'Keys starting with org:sys_ are reserved for system permissions.');
  const now = deps.clock.now();
  return deps.db
    .transaction(async (tx) => {
      const [row] = await tx
        .insert(permissions)
        .values({
          id: newId('perm'),
          instanceId,
          key: input.key,
          name: input.name,
          description: input.description ?? '',
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      const view = permissionView(row!);
      await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'permission.created', view);
      await auditOrgChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'permission.created', view.id, { key: view.key });
      return view;
    })
    .catch(takenKey('permission'));
}

const systemRefused = (what: 'role' | 'permission') =>
  new AppError('FORBIDDEN', { message: `System ${what}s cannot be changed or deleted.`, meta: { reason: `system_${what}` } });

export async function updatePermission(
  deps: D,
  instanceId: string,
  id: string,
  input: { name?: string; description?: string },
  auditCtx: OrgAuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const current = await loadPermission(tx, instanceId, id);
    if (current.system) throw systemRefused('permission');
    const [row] = await tx
      .update(permissions)
      .set({ name: input.name ?? current.name, description: input.description ?? current.description, updatedAt: deps.clock.now() })
      .where(eq(permissions.id, id))
      .returning();
    const view = permissionView(row!);
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'permission.updated', view);
    await auditOrgChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'permission.updated', id, { key: view.key });
    return view;
  });
}

/** Deletes a custom permission and takes it out of every role holding it (role.updated each). */
export async function deletePermission(deps: D, instanceId: string, id: string, auditCtx: OrgAuditContext) {
  return deps.db.transaction(async (tx) => {
    const current = await loadPermission(tx, instanceId, id);
    if (current.system) throw systemRefused('permission');
    const d = { db: tx, clock: deps.clock };
    const holders = await tx
      .select()
      .from(roles)
      .where(and(eq(roles.instanceId, instanceId), sql`${roles.permissions} @> ${JSON.stringify([current.key])}::jsonb`));
    for (const r of holders) {
      const [updated] = await tx
        .update(roles)
        .set({ permissions: r.permissions.filter((k) => k !== current.key), updatedAt: deps.clock.now() })
        .where(eq(roles.id, r.id))
        .returning();
      await emitEvent(d, instanceId, 'role.updated', roleView(updated!));
    }
    await tx.delete(permissions).where(eq(permissions.id, id));
    await emitEvent(d, instanceId, 'permission.deleted', { ...permissionView(current), deleted: true });
    await auditOrgChange(d, instanceId, auditCtx, 'permission.deleted', id, { key: current.key });
    return { object: 'permission' as const, id, deleted: true as const };
  });
}

// --- Roles ---

async function loadRole(db: Db, instanceId: string, id: string) {
  const [row] = await db
    .select()
    .from(roles)
    .where(and(eq(roles.instanceId, instanceId), eq(roles.id, id)));
  if (!row) throw notFound('role');
  return row;
}

async function assertPermissionsExist(db: Db, instanceId: string, keys: string[]) {
  if (keys.length === 0) return;
  const found = await db
    .select({ key: permissions.key })
    .from(permissions)
    .where(and(eq(permissions.instanceId, instanceId), inArray(permissions.key, keys)));
  const known = new Set(found.map((f) => f.key));
  const missing = keys.find((k) => !known.has(k));
  if (missing) throw validationError('permissions', 'unknown_permission', `${missing} is not a permission of this instance.`);
}

export async function listRoles(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  q: { limit: number; starting_after?: string },
) {
  await ensureBuiltIns(deps, instanceId);
  return lightList(q, oldestFirst(roles.id), tableRows(deps.db, roles, eq(roles.instanceId, instanceId)), roleView);
}

export async function getRole(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string, id: string) {
  await ensureBuiltIns(deps, instanceId);
  return roleView(await loadRole(deps.db, instanceId, id));
}

export async function createRole(
  deps: Pick<Deps, 'db' | 'clock' | 'caches'>,
  instanceId: string,
  input: { key: string; name: string; description?: string; permissions?: string[] },
  auditCtx: OrgAuditContext,
) {
  await ensureBuiltIns(deps, instanceId);
  const keys = [...new Set(input.permissions ?? [])];
  const now = deps.clock.now();
  return deps.db
    .transaction(async (tx) => {
      await assertPermissionsExist(tx, instanceId, keys);
      const [row] = await tx
        .insert(roles)
        .values({
          id: newId('role'),
          instanceId,
          key: input.key,
          name: input.name,
          description: input.description ?? '',
          permissions: keys,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      const view = roleView(row!);
      await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'role.created', view);
      await auditOrgChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'role.created', view.id, {
        key: view.key,
        permissions: view.permissions,
      });
      return view;
    })
    .catch(takenKey('role'));
}

/**
 * Renames a role or replaces its permissions. The key never changes (memberships name
 * it). `org:admin` keeps every system permission, so an organization always has
 * someone able to manage it.
 */
export async function updateRole(
  deps: D,
  instanceId: string,
  id: string,
  input: { name?: string; description?: string; permissions?: string[] },
  auditCtx: OrgAuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const current = await loadRole(tx, instanceId, id);
    const keys = input.permissions ? [...new Set(input.permissions)] : current.permissions;
    if (input.permissions) await assertPermissionsExist(tx, instanceId, keys);
    if (current.key === ADMIN_ROLE && SYSTEM_PERMISSIONS.some((p) => !keys.includes(p.key))) {
      throw validationError('permissions', 'admin_needs_system_permissions', 'org:admin keeps every system permission.');
    }
    const [row] = await tx
      .update(roles)
      .set({
        name: input.name ?? current.name,
        description: input.description ?? current.description,
        permissions: keys,
        updatedAt: deps.clock.now(),
      })
      .where(eq(roles.id, id))
      .returning();
    const view = roleView(row!);
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'role.updated', view);
    await auditOrgChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'role.updated', id, {
      key: view.key,
      from: [...current.permissions].sort(),
      to: view.permissions,
    });
    return view;
  });
}

/** A custom role nobody holds, no pending invitation names and the settings do not use. */
export async function deleteRole(deps: D, instanceId: string, id: string, auditCtx: OrgAuditContext) {
  return deps.db.transaction(async (tx) => {
    const current = await loadRole(tx, instanceId, id);
    if (current.system) throw systemRefused('role');
    const [held] = await tx
      .select({ id: organizationMemberships.id })
      .from(organizationMemberships)
      .where(and(eq(organizationMemberships.instanceId, instanceId), eq(organizationMemberships.role, current.key)))
      .limit(1);
    const [invited] = await tx
      .select({ id: organizationInvitations.id })
      .from(organizationInvitations)
      .where(
        and(
          eq(organizationInvitations.instanceId, instanceId),
          eq(organizationInvitations.role, current.key),
          eq(organizationInvitations.status, 'pending'),
        ),
      )
      .limit(1);
    const [instance] = await tx.select({ settings: instances.settings }).from(instances).where(eq(instances.id, instanceId));
    const settings = instanceSettings(instance?.settings);
    const inSettings = settings.organization_default_role === current.key || settings.organization_creator_role === current.key;
    if (held || invited || inSettings) {
      throw new AppError('CONFLICT', {
        message: 'This role is in use (by members, pending invitations or the instance settings); reassign it first.',
        meta: { reason: 'role_in_use' },
      });
    }
    await tx.delete(roles).where(eq(roles.id, id));
    await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'role.deleted', { ...roleView(current), deleted: true });
    await auditOrgChange({ db: tx, clock: deps.clock }, instanceId, auditCtx, 'role.deleted', id, { key: current.key });
    return { object: 'role' as const, id, deleted: true as const };
  });
}

/** The role keys a settings change names must be roles of the instance (422 naming the setting). */
export async function assertSettingsRoles(deps: Pick<Deps, 'db' | 'clock' | 'caches'>, instanceId: string, patch: Record<string, unknown>) {
  const named = (['organization_default_role', 'organization_creator_role'] as const).filter((k) => typeof patch[k] === 'string');
  if (named.length === 0) return;
  await ensureBuiltIns(deps, instanceId);
  for (const k of named) await assertRole(deps.db, instanceId, patch[k] as string, k);
}
