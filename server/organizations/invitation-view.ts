import type { organizationInvitations } from '../db/schema';

type InvitationRow = typeof organizationInvitations.$inferSelect;
type OrgLike = { id: string; name: string; slug: string; image_url: string | null };

/** `expired` is derived: a pending invitation past expires_at. */
export const invitationStatus = (inv: Pick<InvitationRow, 'status' | 'expiresAt'>, now: number) =>
  inv.status === 'pending' && inv.expiresAt <= now ? ('expired' as const) : inv.status;

export function organizationInvitationView(inv: InvitationRow, org: OrgLike, now: number) {
  return {
    object: 'organization_invitation' as const,
    id: inv.id,
    email_address: inv.emailAddress,
    role: inv.role,
    organization_id: inv.organizationId,
    public_organization_data: { id: org.id, name: org.name, slug: org.slug, image_url: org.image_url, has_image: org.image_url !== null },
    status: invitationStatus(inv, now),
    redirect_url: inv.redirectUrl,
    public_metadata: inv.publicMetadata,
    private_metadata: inv.privateMetadata,
    inviter_user_id: inv.inviterUserId,
    expires_at: inv.expiresAt,
    created_at: inv.createdAt,
    updated_at: inv.updatedAt,
  };
}
export type OrganizationInvitationView = ReturnType<typeof organizationInvitationView>;

export function publicInvitationView(v: OrganizationInvitationView) {
  const { private_metadata: _hidden, ...rest } = v;
  return rest;
}
