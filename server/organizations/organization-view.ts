import type { ParentLock } from '../db/row-locks';
import { and, eq } from 'drizzle-orm';
import type { Db } from '../db/client';
import { organizations } from '../db/schema';
import { notFound } from '../http/errors';
import { isId } from '../db/ids';

export type OrganizationRow = typeof organizations.$inferSelect;

export function organizationView(o: OrganizationRow, membersCount: number) {
  return {
    object: 'organization' as const,
    id: o.id,
    name: o.name,
    slug: o.slug,
    image_url: o.imageUrl,
    has_image: o.imageUrl !== null,
    public_metadata: o.publicMetadata,
    private_metadata: o.privateMetadata,
    max_allowed_memberships: o.maxAllowedMemberships,
    members_count: membersCount,
    created_by: o.createdBy,
    created_at: o.createdAt,
    updated_at: o.updatedAt,
  };
}
export type OrganizationView = ReturnType<typeof organizationView>;

/** What members see on the FAPI: never private_metadata. */
export function publicOrganizationView(o: OrganizationView) {
  const { private_metadata: _hidden, ...rest } = o;
  return rest;
}

/**
 * An organization by id or slug in this instance; `lock` takes its row lock (membership
 * changes serialise on it): `true` is FOR NO KEY UPDATE, `'update'` FOR UPDATE for a slug
 * change or the deletion (server/db/row-locks.ts).
 */
export async function loadOrganization(
  db: Db,
  instanceId: string,
  idOrSlug: string,
  opts: { lock?: boolean | ParentLock } = {},
): Promise<OrganizationRow> {
  const where = and(
    eq(organizations.instanceId, instanceId),
    isId('org', idOrSlug) ? eq(organizations.id, idOrSlug) : eq(organizations.slug, idOrSlug.toLowerCase()),
  );
  const q = db.select().from(organizations).where(where);
  // NO KEY UPDATE unless asked: it serialises membership changes without conflicting with the KEY
  // SHARE lock a concurrent insert of a row referencing the organization holds.
  const [row] = opts.lock ? await q.for(opts.lock === true ? 'no key update' : opts.lock) : await q;
  if (!row) throw notFound('organization');
  return row;
}
