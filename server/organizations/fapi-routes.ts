import { z } from 'zod';
import type { Deps } from '../deps';
import { endpoint } from '../http/endpoint';
import { AppError, isAppError, notFound } from '../http/errors';
import { lightListSchema } from '../http/pagination';
import { resolveMe, type Me, type MeAuth } from '../users/me';
import { meQuery, type MeQuery } from '../users/me-routes';
import { attemptDomainVerification, createDomain, deleteDomain, listDomains, prepareDomainVerification, updateDomain } from './domains';
import { publicInvitationView } from './invitation-view';
import { acceptInvitation, createInvitations, listInvitations, listUserInvitations, revokeInvitation } from './invitations';
import {
  listOrganizationMemberships,
  memberAccess,
  membershipsWithUsers,
  membershipView,
  publicMembershipView,
  removeMembership,
  updateMembership,
} from './memberships';
import { createOrganization, deleteOrganization, getOrganization, publicOrganizationView, updateOrganization } from './organizations';
import { type SystemPermission } from './roles';
import {
  attemptDomainVerificationBody,
  createDomainBody,
  deletedSchema,
  domainLightList,
  domainSchema,
  lightQuery,
  prepareDomainVerificationBody,
  publicInvitationSchema,
  publicMembershipSchema,
  publicOrganizationSchema,
  slug,
  updateDomainBody,
} from './schemas';
import { acceptSuggestion, listUserSuggestions } from './suggestions';

/**
 * FAPI endpoints of organizations, for the signed-in user (a live session; personal
 * access tokens are not accepted). What a member may do in an organization is what
 * the permissions of their role allow: without the permission 403 FORBIDDEN (reason
 * `missing_permission`, meta.permission); an organization the user is not a member of
 * is 404. Everything answers 403 (reason `organizations_disabled`) when the instance
 * turned organizations off.
 */

type OrgAuth = MeAuth;

const auditOf = (me: Me, request: { ip: string | null; userAgent: string | null }) => ({
  actor: me.sessionId ? `session:${me.sessionId}` : `user:${me.userId}`,
  ip: request.ip,
  userAgent: request.userAgent,
});

async function signedIn(deps: Pick<Deps, 'db' | 'clock'>, auth: OrgAuth, query: MeQuery): Promise<Me> {
  if (!auth.instance.settings.organizations_enabled) {
    throw new AppError('FORBIDDEN', { message: 'Organizations are turned off for this application.', meta: { reason: 'organizations_disabled' } });
  }
  return resolveMe(deps, auth, { sessionId: query.session_id });
}

/** The caller's membership in the organization, holding `permission` when named. */
async function member(deps: Pick<Deps, 'db' | 'clock'>, auth: OrgAuth, query: MeQuery, orgIdOrSlug: string, permission?: SystemPermission) {
  const me = await signedIn(deps, auth, query);
  const org = await getOrganization(deps, auth.instance.id, orgIdOrSlug).catch((e: unknown) => {
    if (isAppError(e) && e.code === 'NOT_FOUND') return null;
    throw e;
  });
  const access = org && (await memberAccess(deps.db, auth.instance.id, org.id, me.userId));
  if (!org || !access) throw notFound('organization');
  if (permission && !access.permissions.includes(permission)) {
    throw new AppError('FORBIDDEN', { message: `Your role lacks the ${permission} permission.`, meta: { reason: 'missing_permission', permission } });
  }
  return { me, org, access };
}

const membershipList = lightListSchema(publicMembershipSchema);

export const listMyMembershipsEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'The signed-in user’s organization memberships (light envelope)',
  query: meQuery,
  response: membershipList,
  handle: async ({ deps, auth, query }) => {
    const me = await signedIn(deps, auth, query);
    const rows = await membershipsWithUsers(deps.db, auth.instance.id, { userId: me.userId, limit: 501 });
    return { object: 'list' as const, data: rows.slice(0, 500).map((r) => publicMembershipView(membershipView(r))), has_more: rows.length > 500 };
  },
});

export const leaveOrganizationEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Leave an organization (the last admin cannot)',
  query: meQuery,
  response: publicMembershipSchema.extend({ deleted: z.literal(true) }),
  handle: async ({ deps, auth, query, params, request }) => {
    const { me, org } = await member(deps, auth, query, params.id!);
    return { ...publicMembershipView(await removeMembership(deps, auth.instance.id, org.id, me.userId, auditOf(me, request))), deleted: true as const };
  },
});

const createOrgBody = z.strictObject({ name: z.string().trim().min(1).max(256), slug: slug.optional() });

export const createOrganizationEndpoint = endpoint<OrgAuth, z.output<typeof createOrgBody>, MeQuery>({
  summary: 'Create an organization, joining it with the creator role (when the instance allows it)',
  body: createOrgBody,
  query: meQuery,
  response: publicOrganizationSchema,
  handle: async ({ deps, auth, query, body }) => {
    const me = await signedIn(deps, auth, query);
    if (!auth.instance.settings.organization_creation_enabled) {
      throw new AppError('FORBIDDEN', { message: 'Users cannot create organizations in this application.', meta: { reason: 'organization_creation_disabled' } });
    }
    return publicOrganizationView(await createOrganization(deps, auth.instance.id, { ...body, created_by: me.userId }));
  },
});

export const getOrganizationEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'An organization the user is a member of',
  query: meQuery,
  response: publicOrganizationSchema,
  handle: async ({ deps, auth, query, params }) => publicOrganizationView((await member(deps, auth, query, params.id!)).org),
});

const updateOrgBody = z.strictObject({ name: z.string().trim().min(1).max(256).optional(), slug: slug.optional() });

export const updateOrganizationEndpoint = endpoint<OrgAuth, z.output<typeof updateOrgBody>, MeQuery>({
  summary: 'Rename an organization (org:sys_profile:manage)',
  body: updateOrgBody,
  query: meQuery,
  response: publicOrganizationSchema,
  handle: async ({ deps, auth, query, params, body }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_profile:manage');
    return publicOrganizationView(await updateOrganization(deps, auth.instance.id, org.id, body));
  },
});

export const deleteOrganizationEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Delete an organization (org:sys_profile:delete)',
  query: meQuery,
  response: deletedSchema('organization'),
  handle: async ({ deps, auth, query, params, request }) => {
    const { me, org } = await member(deps, auth, query, params.id!, 'org:sys_profile:delete');
    return deleteOrganization(deps, auth.instance.id, org.id, auditOf(me, request));
  },
});

const listQuery = meQuery.extend(lightQuery);
type ListQuery = z.output<typeof listQuery>;

export const listMembersEndpoint = endpoint<OrgAuth, never, ListQuery>({
  summary: 'The members of an organization (org:sys_memberships:read)',
  query: listQuery,
  response: membershipList,
  handle: async ({ deps, auth, query, params }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_memberships:read');
    const list = await listOrganizationMemberships(deps, auth.instance.id, org.id, query);
    return { ...list, data: list.data.map(publicMembershipView) };
  },
});

const roleBody = z.strictObject({ role: z.string().min(1).max(64) });

export const updateMemberEndpoint = endpoint<OrgAuth, z.output<typeof roleBody>, MeQuery>({
  summary: 'Change a member’s role (org:sys_memberships:manage; the last admin cannot be demoted)',
  body: roleBody,
  query: meQuery,
  response: publicMembershipSchema,
  handle: async ({ deps, auth, query, params, body, request }) => {
    const { me, org } = await member(deps, auth, query, params.id!, 'org:sys_memberships:manage');
    return publicMembershipView(await updateMembership(deps, auth.instance.id, org.id, params.user_id!, { role: body.role }, auditOf(me, request)));
  },
});

export const removeMemberEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Remove a member (org:sys_memberships:manage; the last admin cannot be removed)',
  query: meQuery,
  response: publicMembershipSchema.extend({ deleted: z.literal(true) }),
  handle: async ({ deps, auth, query, params, request }) => {
    const { me, org } = await member(deps, auth, query, params.id!, 'org:sys_memberships:manage');
    return { ...publicMembershipView(await removeMembership(deps, auth.instance.id, org.id, params.user_id!, auditOf(me, request))), deleted: true as const };
  },
});

const invitationList = lightListSchema(publicInvitationSchema);

export const listOrgInvitationsEndpoint = endpoint<OrgAuth, never, ListQuery>({
  summary: 'An organization’s invitations (org:sys_memberships:manage)',
  query: listQuery,
  response: invitationList,
  handle: async ({ deps, auth, query, params }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_memberships:manage');
    const list = await listInvitations(deps, auth.instance.id, org.id, query);
    return { ...list, data: list.data.map(publicInvitationView) };
  },
});

const inviteBody = z.strictObject({
  email_address: z.string().trim().max(320).pipe(z.email({ message: 'must be a valid email address' })),
  role: z.string().min(1).max(64).optional(),
  redirect_url: z.string().max(2048).optional(),
});

export const inviteEndpoint = endpoint<OrgAuth, z.output<typeof inviteBody>, MeQuery>({
  summary: 'Invite an email address (org:sys_memberships:manage); the invitation email carries the accept link',
  body: inviteBody,
  query: meQuery,
  response: publicInvitationSchema,
  handle: async ({ deps, auth, query, params, body }) => {
    const { me, org } = await member(deps, auth, query, params.id!, 'org:sys_memberships:manage');
    const [created] = await createInvitations(deps, auth.instance.id, org.id, [{ ...body, inviter_user_id: me.userId }]);
    return publicInvitationView(created!);
  },
});

export const revokeOrgInvitationEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Revoke a pending invitation (org:sys_memberships:manage)',
  query: meQuery,
  response: publicInvitationSchema,
  handle: async ({ deps, auth, query, params }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_memberships:manage');
    return publicInvitationView(await revokeInvitation(deps, auth.instance.id, org.id, params.invitation_id!));
  },
});

export const listOrgDomainsEndpoint = endpoint<OrgAuth, never, ListQuery>({
  summary: 'An organization’s domains (org:sys_domains:read)',
  query: listQuery,
  response: domainLightList,
  handle: async ({ deps, auth, query, params }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_domains:read');
    return listDomains(deps, auth.instance.id, org.id, query);
  },
});

const fapiDomainBody = createDomainBody.omit({ verified: true });

export const addOrgDomainEndpoint = endpoint<OrgAuth, z.output<typeof fapiDomainBody>, MeQuery>({
  summary: 'Add a domain (org:sys_domains:manage); it starts unverified',
  body: fapiDomainBody,
  query: meQuery,
  response: domainSchema,
  handle: async ({ deps, auth, query, params, body }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_domains:manage');
    return createDomain(deps, auth.instance.id, org.id, body);
  },
});

const fapiDomainPatch = updateDomainBody.omit({ verified: true });

export const updateOrgDomainEndpoint = endpoint<OrgAuth, z.output<typeof fapiDomainPatch>, MeQuery>({
  summary: 'Change a domain’s enrollment mode (org:sys_domains:manage)',
  body: fapiDomainPatch,
  query: meQuery,
  response: domainSchema,
  handle: async ({ deps, auth, query, params, body }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_domains:manage');
    return updateDomain(deps, auth.instance.id, org.id, params.domain_id!, body);
  },
});

export const deleteOrgDomainEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Remove a domain (org:sys_domains:manage)',
  query: meQuery,
  response: deletedSchema('organization_domain'),
  handle: async ({ deps, auth, query, params }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_domains:manage');
    return deleteDomain(deps, auth.instance.id, org.id, params.domain_id!);
  },
});

export const prepareOrgDomainVerificationEndpoint = endpoint<OrgAuth, z.output<typeof prepareDomainVerificationBody>, MeQuery>({
  summary: 'Start verifying a domain: an email code to an address at it, or the TXT record (org:sys_domains:manage)',
  body: prepareDomainVerificationBody,
  query: meQuery,
  response: domainSchema,
  handle: async ({ deps, auth, query, params, body }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_domains:manage');
    return prepareDomainVerification(deps, auth.instance.id, org.id, params.domain_id!, body);
  },
});

export const attemptOrgDomainVerificationEndpoint = endpoint<OrgAuth, z.output<typeof attemptDomainVerificationBody>, MeQuery>({
  summary: 'Complete a domain verification (org:sys_domains:manage)',
  body: attemptDomainVerificationBody,
  query: meQuery,
  response: domainSchema,
  handle: async ({ deps, auth, query, params, body }) => {
    const { org } = await member(deps, auth, query, params.id!, 'org:sys_domains:manage');
    return attemptDomainVerification(deps, auth.instance.id, org.id, params.domain_id!, body);
  },
});

export const listMyInvitationsEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Pending invitations to the signed-in user’s verified email addresses',
  query: meQuery,
  response: invitationList,
  handle: async ({ deps, auth, query }) => {
    const me = await signedIn(deps, auth, query);
    const list = await listUserInvitations(deps, auth.instance.id, me.userId);
    return { ...list, data: list.data.map(publicInvitationView) };
  },
});

const acceptedSchema = z.object({ object: z.literal('organization_invitation_acceptance'), invitation: publicInvitationSchema, membership: publicMembershipSchema });
const accepted = (r: Awaited<ReturnType<typeof acceptInvitation>>) => ({
  object: 'organization_invitation_acceptance' as const,
  invitation: publicInvitationView(r.invitation),
  membership: publicMembershipView(r.membership),
});

export const acceptMyInvitationEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Accept an invitation to one of the user’s verified addresses: the user joins with its role',
  query: meQuery,
  response: acceptedSchema,
  handle: async ({ deps, auth, query, params }) => {
    const me = await signedIn(deps, auth, query);
    return accepted(await acceptInvitation(deps, auth.instance.id, me.userId, { id: params.id! }));
  },
});

const tokenBody = z.strictObject({ token: z.string().min(1).max(128) });

export const acceptInvitationByTokenEndpoint = endpoint<OrgAuth, z.output<typeof tokenBody>, MeQuery>({
  summary: 'Accept the invitation of an accept link’s invitation_token (the user must hold the invited address, verified)',
  body: tokenBody,
  query: meQuery,
  response: acceptedSchema,
  handle: async ({ deps, auth, query, body }) => {
    const me = await signedIn(deps, auth, query);
    return accepted(await acceptInvitation(deps, auth.instance.id, me.userId, { token: body.token }));
  },
});

export const listMySuggestionsEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Organizations suggested to the user by their verified email domain',
  query: meQuery,
  response: lightListSchema(
    z.object({
      object: z.literal('organization_suggestion'),
      id: z.string(),
      status: z.enum(['pending', 'accepted']),
      public_organization_data: publicInvitationSchema.shape.public_organization_data,
      created_at: z.number().int(),
      updated_at: z.number().int(),
    }),
  ),
  handle: async ({ deps, auth, query }) => {
    const me = await signedIn(deps, auth, query);
    return listUserSuggestions(deps, auth.instance.id, me.userId);
  },
});

export const acceptMySuggestionEndpoint = endpoint<OrgAuth, never, MeQuery>({
  summary: 'Join a suggested organization with the default role',
  query: meQuery,
  response: publicMembershipSchema,
  handle: async ({ deps, auth, query, params }) => {
    const me = await signedIn(deps, auth, query);
    return publicMembershipView(await acceptSuggestion(deps, auth.instance.id, me.userId, params.id!));
  },
});
