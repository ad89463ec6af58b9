import { forgetSsoDomains } from './sso-domains';
import { containsPattern } from '../db/like';
import { and, eq, exists, ilike, or, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import type { Db } from '../db/client';
import { uniqueViolation } from '../db/errors';
import { organizationDomains, organizationInvitations, organizationMemberships, organizations, sessions, users } from '../db/schema';
import { emitEvent } from '../events/events';
import { revokeKeysOfSubject } from '../apikeys/lifecycle';
import { validationError } from '../http/errors';
import { newId } from '../db/ids';
import { cursorList, newestFirst, type Keyset } from '../http/cursor-list';
import { instanceContext } from '../instances/instances';
import { assertMetadata, mergeMetadataChecked } from '../http/metadata';
import { auditOrgChange, type OrgAuditContext } from './audit';
import { domainView } from './domain-view';
import { organizationInvitationView } from './invitation-view';
import { addMembershipInTx, membershipsWithUsers, removeMembershipInTx } from './memberships';
import { loadOrganization, organizationView, type OrganizationRow, type OrganizationView } from './organization-view';
import { ensureBuiltIns } from './roles';
import { updateSessions } from '../sessions/session-state';

type D = Pick<Deps, 'db' | 'clock' | 'caches'>;

/** The organization's members, as the triggers of migration 0052 keep them in its row (in the transaction of each change). */
async function membersCount(db: Db, organizationId: string): Promise<number> {
  const [row] = await db.select({ n: organizations.membersCount }).from(organizations).where(eq(organizations.id, organizationId));
  return row?.n ?? 0;
}

export async function organizationViewOf(db: Db, row: OrganizationRow) {
  return organizationView(row, await membersCount(db, row.id));
}

export async function getOrganization(deps: Pick<Deps, 'db'>, instanceId: string, idOrSlug: string) {
  return organizationViewOf(deps.db, await loadOrganization(deps.db, instanceId, idOrSlug));
}

/** `Acme Corp!` → `acme-corp`. */
function slugify(name: string): string {
  const s = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 48);
  return s || 'org';
}

const rethrowSlugTaken = (err: unknown): never => {
  if (uniqueViolation(err) === 'organizations_slug_uq') throw validationError('slug', 'taken', 'That slug is already taken.');
  throw err;
};

async function slugTaken(db: Db, instanceId: string, slug: string) {
  const [row] = await db
    .select({ id: organizations.id })
    .from(organizations)
    .where(and(eq(organizations.instanceId, instanceId), eq(organizations.slug, slug)));
  return Boolean(row);
}

/** The given slug (422 when taken), or one made from the name with a suffix when that is taken. */
async function chooseSlug(db: Db, instanceId: string, name: string, given?: string) {
  if (given) {
    if (await slugTaken(db, instanceId, given)) throw validationError('slug', 'taken', 'That slug is already taken.');
    return given;
  }
  const base = slugify(name);
  if (!(await slugTaken(db, instanceId, base))) return base;
  return `${base}-${newId('org').slice(-6).toLowerCase()}`;
}

export interface CreateOrganizationInput {
  name: string;
  slug?: string;
  created_by?: string;
  image_url?: string | null;
  public_metadata?: Record<string, unknown>;
  private_metadata?: Record<string, unknown>;
  max_allowed_memberships?: number;
}

/**
 * Creates an organization (organization.created); with `created_by`, that user joins
 * with the instance's creator role (organizationMembership.created), in one transaction.
 */
export async function createOrganization(deps: D, instanceId: string, input: CreateOrganizationInput): Promise<OrganizationView> {
  assertMetadata('public_metadata', input.public_metadata ?? {});
  assertMetadata('private_metadata', input.private_metadata ?? {});
  await ensureBuiltIns(deps, instanceId);
  const settings = (await instanceContext(deps, instanceId)).settings;
  return deps.db
    .transaction(async (tx) => {
      const d = { db: tx, clock: deps.clock };
      if (input.created_by !== undefined) {
        const [u] = await tx
          .select({ id: users.id })
          .from(users)
          .where(and(eq(users.id, input.created_by), eq(users.instanceId, instanceId)));
        if (!u) throw validationError('created_by', 'not_found', 'No user was found with that created_by.');
      }
      const now = deps.clock.now();
      const [row] = await tx
        .insert(organizations)
        .values({
          id: newId('org'),
          instanceId,
          name: input.name,
          slug: await chooseSlug(tx, instanceId, input.name, input.slug),
          imageUrl: input.image_url ?? null,
          publicMetadata: input.public_metadata ?? {},
          privateMetadata: input.private_metadata ?? {},
          maxAllowedMemberships: input.max_allowed_memberships ?? settings.organization_max_allowed_memberships,
          createdBy: input.created_by ?? null,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      await emitEvent(d, instanceId, 'organization.created', organizationView(row!, 0));
      if (input.created_by !== undefined) {
        await addMembershipInTx(d, instanceId, row!, {
          userId: input.created_by,
          role: settings.organization_creator_role,
          roleParam: 'created_by',
        });
      }
      return organizationViewOf(tx, row!);
    })
    .catch(rethrowSlugTaken);
}

export interface UpdateOrganizationInput {
  name?: string;
  slug?: string;
  image_url?: string | null;
  public_metadata?: Record<string, unknown>;
  private_metadata?: Record<string, unknown>;
  max_allowed_memberships?: number;
}

/** Metadata is deep-merged (a null value deletes its key); organization.updated. */
export async function updateOrganization(
  deps: Pick<Deps, 'db' | 'clock'>,
  instanceId: string,
  idOrSlug: string,
  input: UpdateOrganizationInput,
) {
  return deps.db
    .transaction(async (tx) => {
      // A new slug (a unique column) takes FOR UPDATE: asked first, not as an upgrade (server/db/row-locks.ts).
      const current = await loadOrganization(tx, instanceId, idOrSlug, { lock: input.slug !== undefined ? 'update' : true });
      const patch: Partial<typeof organizations.$inferInsert> = { updatedAt: deps.clock.now() };
      if (input.name !== undefined) patch.name = input.name;
      if (input.slug !== undefined && input.slug !== current.slug) {
        if (await slugTaken(tx, instanceId, input.slug)) throw validationError('slug', 'taken', 'That slug is already taken.');
        patch.slug = input.slug;
      }
      if (input.image_url !== undefined) patch.imageUrl = input.image_url;
      if (input.max_allowed_memberships !== undefined) patch.maxAllowedMemberships = input.max_allowed_memberships;
      if (input.public_metadata)
        patch.publicMetadata = mergeMetadataChecked('public_metadata', current.publicMetadata, input.public_metadata);
      if (input.private_metadata)
        patch.privateMetadata = mergeMetadataChecked('private_metadata', current.privateMetadata, input.private_metadata);
      const [row] = await tx.update(organizations).set(patch).where(eq(organizations.id, current.id)).returning();
      const view = await organizationViewOf(tx, row!);
      await emitEvent({ db: tx, clock: deps.clock }, instanceId, 'organization.updated', view);
      return view;
    })
    .catch(rethrowSlugTaken);
}

/**
 * Deletes an organization in one transaction: each membership is removed
 * (organizationMembership.deleted), each pending invitation revoked
 * (organizationInvitation.revoked), each domain removed (organizationDomain.deleted),
 * then organization.deleted. Sessions that had it active drop it.
 */
export async function deleteOrganization(
  deps: Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>,
  instanceId: string,
  idOrSlug: string,
  auditCtx: OrgAuditContext,
) {
  return deps.db.transaction(async (tx) => {
    const d = { db: tx, clock: deps.clock, cacheInvalidation: deps.cacheInvalidation };
    // The deletion takes FOR UPDATE: asked first, not as an upgrade of NO KEY UPDATE (server/db/row-locks.ts).
    const org = await loadOrganization(tx, instanceId, idOrSlug, { lock: 'update' });
    const before = await organizationViewOf(tx, org);
    const members = await membershipsWithUsers(tx, instanceId, { organizationId: org.id });
    for (const m of members) await removeMembershipInTx(d, instanceId, org, m.membership.userId, { force: true });
    const now = deps.clock.now();
    const pending = await tx
      .update(organizationInvitations)
      .set({ status: 'revoked', updatedAt: now })
      .where(and(eq(organizationInvitations.organizationId, org.id), eq(organizationInvitations.status, 'pending')))
      .returning();
    for (const inv of pending)
      await emitEvent(d, instanceId, 'organizationInvitation.revoked', organizationInvitationView(inv, before, now));
    const domains = await tx.delete(organizationDomains).where(eq(organizationDomains.organizationId, org.id)).returning();
    for (const dom of domains) await emitEvent(d, instanceId, 'organizationDomain.deleted', { ...domainView(dom), deleted: true });
    await updateSessions(
      d,
      { lastActiveOrganizationId: null },
      and(eq(sessions.instanceId, instanceId), eq(sessions.lastActiveOrganizationId, org.id)),
    );
    await revokeKeysOfSubject(d, instanceId, org.id, 'organization_deleted');
    await tx.delete(organizations).where(eq(organizations.id, org.id));
    // Its SSO connections go with it (foreign key cascade).
    forgetSsoDomains(deps, instanceId);
    await emitEvent(d, instanceId, 'organization.deleted', { ...before, members_count: 0, deleted: true });
    await auditOrgChange(d, instanceId, auditCtx, 'organization.deleted', org.id, {
      name: org.name,
      slug: org.slug,
      members_count: before.members_count,
    });
    return { object: 'organization' as const, id: org.id, slug: org.slug, deleted: true as const };
  });
}

export async function listOrganizations(
  deps: Pick<Deps, 'db'>,
  instanceId: string,
  q: { limit: number; starting_after?: string; query?: string; user_id?: string },
) {
  const filters: (SQL | undefined)[] = [eq(organizations.instanceId, instanceId)];
  if (q.query) {
    const pattern = containsPattern(q.query);
    filters.push(or(ilike(organizations.name, pattern), ilike(organizations.slug, pattern), eq(organizations.id, q.query)));
  }
  if (q.user_id) {
    filters.push(
      exists(
        deps.db
          .select({ one: sql`1` })
          .from(organizationMemberships)
          .where(and(eq(organizationMemberships.organizationId, organizations.id), eq(organizationMemberships.userId, q.user_id))),
      ),
    );
  }
  const rows = (k: Keyset) =>
    deps.db
      .select({ org: organizations })
      .from(organizations)
      .where(and(...filters, k.after))
      .orderBy(k.orderBy)
      .limit(k.limit);
  return cursorList(
    q,
    newestFirst(organizations.id),
    rows,
    (r) => organizationView(r.org, r.org.membersCount),
    (r) => r.org.id,
  );
}
