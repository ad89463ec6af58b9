import { and, eq, sql } from 'drizzle-orm';
import type { Db } from '../db/client';
import { prepared } from '../db/prepared';
import { organizationMemberships, organizations, roles } from '../db/schema';

export interface OrgClaims {
  org_id: string;
  org_slug: string;
  org_role: string;
  org_permissions: string[];
}

const activeMembership = prepared((db) =>
  db
    .select({ slug: organizations.slug, role: organizationMemberships.role, permissions: roles.permissions })
    .from(organizationMemberships)
    .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
    .leftJoin(roles, and(eq(roles.instanceId, organizationMemberships.instanceId), eq(roles.key, organizationMemberships.role)))
    .where(
      and(
        eq(organizationMemberships.organizationId, sql.placeholder('organizationId')),
        eq(organizationMemberships.userId, sql.placeholder('userId')),
        eq(organizationMemberships.instanceId, sql.placeholder('instanceId')),
        eq(organizationMemberships.status, 'active'),
      ),
    )
    .prepare('org_claims'),
);

/**
 * The active-organization claims of a session JWT, read afresh at every signing (so a
 * removed member loses them at the next refresh); null when the user is not a member (or the directory suspended the membership).
 */
export async function orgClaims(db: Db, instanceId: string, organizationId: string, userId: string): Promise<OrgClaims | null> {
  const [row] = await activeMembership(db).execute({ organizationId, userId, instanceId });
  if (!row) return null;
  return { org_id: organizationId, org_slug: row.slug, org_role: row.role, org_permissions: [...(row.permissions ?? [])].sort() };
}
