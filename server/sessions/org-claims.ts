import { and, eq, sql, type Placeholder } from 'drizzle-orm';
import type { Db } from '../db/client';
import { prepared } from '../db/prepared';
import { organizationMemberships, organizations, roles } from '../db/schema';
import type { ClaimsOrg } from '../instances/claims-template';

export interface OrgClaims {
  org_id: string;
  org_slug: string;
  org_role: string;
  org_permissions: string[];
}

type Param = string | Placeholder;
/** The user's active membership of the organization (a suspended one grants nothing). */
const activeMembershipOf = (organizationId: Param, userId: Param, instanceId: Param) =>
  and(
    eq(organizationMemberships.organizationId, organizationId),
    eq(organizationMemberships.userId, userId),
    eq(organizationMemberships.instanceId, instanceId),
    eq(organizationMemberships.status, 'active'),
  );

const activeMembership = prepared((db) =>
  db
    .select({ slug: organizations.slug, role: organizationMemberships.role, permissions: roles.permissions })
    .from(organizationMemberships)
    .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
    .leftJoin(roles, and(eq(roles.instanceId, organizationMemberships.instanceId), eq(roles.key, organizationMemberships.role)))
    .where(activeMembershipOf(sql.placeholder('organizationId'), sql.placeholder('userId'), sql.placeholder('instanceId')))
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

/**
 * The session's active organization as a template's `{{org.…}}` and `{{org_membership.…}}`
 * shortcodes read it (server/instances/claims-template.ts): read only for a template that uses
 * them, null when the user is not an active member.
 */
export async function claimsOrg(db: Db, instanceId: string, organizationId: string, userId: string): Promise<ClaimsOrg | null> {
  const [row] = await db
    .select({
      org: organizations,
      role: organizationMemberships.role,
      membershipMetadata: organizationMemberships.publicMetadata,
      permissions: roles.permissions,
    })
    .from(organizationMemberships)
    .innerJoin(organizations, eq(organizations.id, organizationMemberships.organizationId))
    .leftJoin(roles, and(eq(roles.instanceId, organizationMemberships.instanceId), eq(roles.key, organizationMemberships.role)))
    .where(activeMembershipOf(organizationId, userId, instanceId));
  if (!row) return null;
  return {
    id: row.org.id,
    name: row.org.name,
    slug: row.org.slug,
    imageUrl: row.org.imageUrl,
    publicMetadata: row.org.publicMetadata,
    role: row.role,
    permissions: [...(row.permissions ?? [])].sort(),
    membershipPublicMetadata: row.membershipMetadata,
  };
}

/** The session token's organization claims of an organization read for a template (the same as orgClaims answers). */
export const orgClaimsOf = (o: ClaimsOrg): OrgClaims => ({
  org_id: o.id,
  org_slug: o.slug,
  org_role: o.role,
  org_permissions: o.permissions,
});
