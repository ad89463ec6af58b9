import { z } from 'zod';
import type { Deps } from '../deps';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { cursorPageSchema, lightListSchema } from '../http/pagination';
import {
  attemptDomainVerification,
  createDomain,
  deleteDomain,
  getDomain,
  listDomains,
  prepareDomainVerification,
  updateDomain,
} from './domains';
import type { OrganizationInvitationView } from './invitation-view';
import { USER_UPLOAD, type ImageUpload } from '../http/images';
import { deleteOrganizationLogo, organizationLogoUploadSchema, setOrganizationLogo } from './logo';
import {
  acceptMembershipRequest,
  listMembershipRequests,
  rejectMembershipRequest,
  type MembershipRequestStatus,
} from './membership-requests';
import { createInvitations, getInvitation, listOrganizationInvitations, revokeOrganizationInvitation } from './invitations';
import {
  addMembership,
  listOrganizationMemberships,
  listUserMemberships,
  removeMembership,
  updateMembership,
  type MembershipView,
} from './memberships';
import type { OrganizationView } from './organization-view';
import { createOrganization, deleteOrganization, getOrganization, listOrganizations, updateOrganization } from './organizations';
import {
  createPermission,
  createRole,
  deletePermission,
  deleteRole,
  getPermission,
  getRole,
  listPermissions,
  listRoles,
  updatePermission,
  updateRole,
} from './roles';
import {
  attemptDomainVerificationBody,
  bulkInvitationBody,
  createDomainBody,
  createInvitationBody,
  createMembershipBody,
  createOrganizationBody,
  createPermissionBody,
  createRoleBody,
  deletedSchema,
  domainLightList,
  domainSchema,
  invitationSchema,
  lightQuery,
  listInvitationsQuery,
  listMembershipRequestsQuery,
  listMembershipsQuery,
  membershipRequestSchema,
  listOrganizationsQuery,
  listRolesQuery,
  membershipCursorList,
  membershipSchema,
  organizationSchema,
  permissionSchema,
  prepareDomainVerificationBody,
  roleSchema,
  updateDomainBody,
  updateMembershipBody,
  updateOrganizationBody,
  updatePermissionBody,
  updateRoleBody,
  userMembershipsQuery,
} from './schemas';

type Out<T extends z.ZodType> = z.output<T>;
type LightQuery = { limit: number; starting_after?: string };

/**
 * What one surface's callers see of organizations and may change: the whole objects (BAPI,
 * dashboard: `serverAudience`) or what a member may see (FAPI: public views, bodies without
 * metadata, queries that also take the FAPI's own parameters). Everything else is the same
 * endpoint on every surface.
 */
export interface OrganizationAudience<Auth> {
  instanceOf: (auth: Auth) => string;
  show: {
    organization: (o: OrganizationView) => unknown;
    membership: (m: MembershipView) => unknown;
    invitation: (i: OrganizationInvitationView) => unknown;
  };
  schemas: { organization: z.ZodObject; membership: z.ZodObject; invitation: z.ZodObject };
  bodies: {
    updateOrganization: z.ZodType<Out<typeof updateOrganizationBody>>;
    createMembership: z.ZodType<Out<typeof createMembershipBody>>;
    updateMembership: z.ZodType<Out<typeof updateMembershipBody>>;
    createInvitation: z.ZodType<Out<typeof createInvitationBody>>;
    createDomain: z.ZodType<Out<typeof createDomainBody>>;
    updateDomain: z.ZodType<Out<typeof updateDomainBody>>;
    setLogo: z.ZodType<ImageUpload>;
  };
  queries: {
    /** Of a route that takes no query of its own (undefined: none). */
    none?: z.ZodType<object>;
    light: z.ZodType<LightQuery>;
    memberships: z.ZodType<Out<typeof listMembershipsQuery>>;
    invitations: z.ZodType<Out<typeof listInvitationsQuery>>;
    membershipRequests: z.ZodType<LightQuery & { status?: MembershipRequestStatus }>;
  };
  /** The inviter of an invitation made on this surface, when the caller is a user. */
  inviterOf?: (auth: Auth) => string;
}

const same = <T>(v: T) => v;

function serverAudience<Auth>(instanceOf: (auth: Auth) => string): OrganizationAudience<Auth> {
  return {
    instanceOf,
    show: { organization: same, membership: same, invitation: same },
    schemas: { organization: organizationSchema, membership: membershipSchema, invitation: invitationSchema },
    bodies: {
      updateOrganization: updateOrganizationBody,
      createMembership: createMembershipBody,
      updateMembership: updateMembershipBody,
      createInvitation: createInvitationBody,
      createDomain: createDomainBody,
      updateDomain: updateDomainBody,
      // Clerk's backend SDK names who uploaded the logo: accepted, not kept (the audit log has the caller).
      setLogo: organizationLogoUploadSchema.extend({ uploader_user_id: z.string().max(64).optional() }),
    },
    queries: {
      light: z.strictObject(lightQuery),
      memberships: listMembershipsQuery,
      invitations: listInvitationsQuery,
      membershipRequests: listMembershipRequestsQuery,
    },
  };
}

/**
 * An organization's domains, for a surface acting on the instance `instanceOf(auth)`. The FAPI
 * mounts them with bodies that cannot mark a domain verified, and a list query that also
 * takes its own parameters (`session_id`…).
 */
function domainEndpointsFor<Auth>({ instanceOf, bodies, queries }: OrganizationAudience<Auth>) {
  return {
    createDomain: endpoint<Auth, Out<typeof createDomainBody>, object, 'id'>({
      summary: 'Add a domain to an organization (public email domains are refused)',
      body: bodies.createDomain,
      query: queries.none,
      response: domainSchema,
      audit: { action: 'organization_domain.created' },
      handle: ({ deps, auth, params, body }) => createDomain(deps, instanceOf(auth), params.id, body),
    }),
    listDomains: endpoint<Auth, never, LightQuery, 'id'>({
      summary: 'An organization’s domains (light envelope)',
      query: queries.light,
      response: domainLightList,
      handle: ({ deps, auth, params, query }) => listDomains(deps, instanceOf(auth), params.id, query),
    }),
    getDomain: endpoint<Auth, never, object, 'domain_id' | 'id'>({
      summary: 'Get a domain with its verification state and TXT record',
      query: queries.none,
      response: domainSchema,
      handle: ({ deps, auth, params }) => getDomain(deps, instanceOf(auth), params.id, params.domain_id),
    }),
    updateDomain: endpoint<Auth, Out<typeof updateDomainBody>, object, 'domain_id' | 'id'>({
      summary: 'Change a domain’s enrollment mode, or mark it verified',
      body: bodies.updateDomain,
      query: queries.none,
      response: domainSchema,
      audit: { action: 'organization_domain.updated' },
      handle: ({ deps, auth, params, body }) => updateDomain(deps, instanceOf(auth), params.id, params.domain_id, body),
    }),
    deleteDomain: endpoint<Auth, never, object, 'domain_id' | 'id'>({
      summary: 'Remove a domain',
      query: queries.none,
      response: deletedSchema('organization_domain'),
      audit: { action: 'organization_domain.deleted' },
      handle: ({ deps, auth, params }) => deleteDomain(deps, instanceOf(auth), params.id, params.domain_id),
    }),
    prepareDomainVerification: endpoint<Auth, Out<typeof prepareDomainVerificationBody>, object, 'domain_id' | 'id'>({
      summary: 'Start verifying a domain: email a code to an address at it, or get the TXT record to publish',
      body: prepareDomainVerificationBody,
      query: queries.none,
      response: domainSchema,
      audit: { action: 'organization_domain.verification_prepared' },
      handle: ({ deps, auth, params, body }) => prepareDomainVerification(deps, instanceOf(auth), params.id, params.domain_id, body),
    }),
    attemptDomainVerification: endpoint<Auth, Out<typeof attemptDomainVerificationBody>, object, 'domain_id' | 'id'>({
      summary: 'Complete a domain verification: the emailed code, or a TXT record lookup',
      body: attemptDomainVerificationBody,
      query: queries.none,
      response: domainSchema,
      audit: { action: 'organization_domain.verification_attempted' },
      handle: ({ deps, auth, params, body }) => attemptDomainVerification(deps, instanceOf(auth), params.id, params.domain_id, body),
    }),
  };
}

/**
 * An organization, its memberships, invitations and domains, for a surface whose callers act
 * on the instance `audience.instanceOf(auth)` and see what the audience shows.
 * Path parameters: `id` the organization, `user_id`, `invitation_id`, `domain_id`.
 */
export function organizationEndpointsFor<Auth>(audience: OrganizationAudience<Auth>) {
  const { instanceOf, show, schemas, bodies, queries } = audience;
  const deletedMembership = schemas.membership.extend({ deleted: z.literal(true) });
  return {
    getOrganization: endpoint<Auth, never, object, 'id'>({
      summary: 'Get an organization by id or slug',
      query: queries.none,
      response: schemas.organization,
      handle: async ({ deps, auth, params }) => show.organization(await getOrganization(deps, instanceOf(auth), params.id)),
    }),
    updateOrganization: endpoint<Auth, Out<typeof updateOrganizationBody>, object, 'id'>({
      summary: 'Update an organization (metadata is deep-merged; null deletes a key)',
      body: bodies.updateOrganization,
      query: queries.none,
      response: schemas.organization,
      audit: { action: 'organization.updated' },
      handle: async ({ deps, auth, params, body }) => show.organization(await updateOrganization(deps, instanceOf(auth), params.id, body)),
    }),
    deleteOrganization: endpoint<Auth, never, object, 'id'>({
      summary: 'Delete an organization: its memberships are removed and pending invitations revoked',
      query: queries.none,
      response: deletedSchema('organization'),
      audit: { action: 'organization.deleted' },
      handle: ({ deps, auth, actor, params }) => deleteOrganization(deps, instanceOf(auth), params.id, auditContextOf(actor)),
    }),

    setLogo: endpoint<Auth, ImageUpload, object, 'id'>({
      summary: `Set the organization’s logo (${USER_UPLOAD}); its image_url is then the logo’s public URL`,
      multipart: true,
      body: bodies.setLogo,
      query: queries.none,
      response: schemas.organization,
      audit: { action: 'organization.logo_updated' },
      handle: async ({ deps, auth, params, body }) => show.organization(await setOrganizationLogo(deps, instanceOf(auth), params.id, body)),
    }),
    deleteLogo: endpoint<Auth, never, object, 'id'>({
      summary: 'Remove the organization’s logo (404 without one)',
      query: queries.none,
      response: schemas.organization,
      audit: { action: 'organization.logo_deleted' },
      handle: async ({ deps, auth, params }) => show.organization(await deleteOrganizationLogo(deps, instanceOf(auth), params.id)),
    }),

    listMemberships: endpoint<Auth, never, Out<typeof listMembershipsQuery>, 'id'>({
      summary: 'The members of an organization, oldest first (light envelope)',
      query: queries.memberships,
      response: lightListSchema(schemas.membership),
      handle: async ({ deps, auth, params, query }) => {
        const list = await listOrganizationMemberships(deps, instanceOf(auth), params.id, query);
        return { ...list, data: list.data.map(show.membership) };
      },
    }),
    createMembership: endpoint<Auth, Out<typeof createMembershipBody>, object, 'id'>({
      summary: 'Add a user of the instance to an organization directly (default role from the instance settings)',
      body: bodies.createMembership,
      query: queries.none,
      response: schemas.membership,
      audit: { action: 'organization_membership.created' },
      handle: async ({ deps, auth, actor, params, body }) =>
        show.membership(await addMembership(deps, instanceOf(auth), params.id, body, auditContextOf(actor))),
    }),
    // The domain records a role change as organization_membership.role_changed; the router a metadata-only update.
    updateMembership: endpoint<Auth, Out<typeof updateMembershipBody>, object, 'id' | 'user_id'>({
      summary: 'Change a member’s role or metadata (the last admin cannot be demoted)',
      body: bodies.updateMembership,
      query: queries.none,
      response: schemas.membership,
      audit: { action: 'organization_membership.updated' },
      handle: async ({ deps, auth, actor, params, body }) =>
        show.membership(await updateMembership(deps, instanceOf(auth), params.id, params.user_id, body, auditContextOf(actor))),
    }),
    deleteMembership: endpoint<Auth, never, object, 'id' | 'user_id'>({
      summary: 'Remove a member (the last admin cannot be removed)',
      query: queries.none,
      response: deletedMembership,
      audit: { action: 'organization_membership.deleted' },
      handle: async ({ deps, auth, actor, params }) => ({
        ...(show.membership(await removeMembership(deps, instanceOf(auth), params.id, params.user_id, auditContextOf(actor))) as object),
        deleted: true as const,
      }),
    }),

    createInvitation: endpoint<Auth, Out<typeof createInvitationBody>, object, 'id'>({
      summary: 'Invite an email address to an organization; the invitation email carries the accept link',
      body: bodies.createInvitation,
      query: queries.none,
      response: schemas.invitation,
      audit: { action: 'organization_invitation.created' },
      handle: async ({ deps, auth, params, body }) => {
        const invitation = audience.inviterOf ? { ...body, inviter_user_id: audience.inviterOf(auth) } : body;
        return show.invitation((await createInvitations(deps, instanceOf(auth), params.id, [invitation]))[0]!);
      },
    }),
    listInvitations: endpoint<Auth, never, Out<typeof listInvitationsQuery>, 'id'>({
      summary: 'An organization’s invitations, oldest first (light envelope; status filter)',
      query: queries.invitations,
      response: lightListSchema(schemas.invitation),
      handle: async ({ deps, auth, params, query }) => {
        const list = await listOrganizationInvitations(deps, instanceOf(auth), params.id, query);
        return { ...list, data: list.data.map(show.invitation) };
      },
    }),
    revokeInvitation: endpoint<Auth, never, object, 'id' | 'invitation_id'>({
      summary: 'Revoke a pending invitation',
      query: queries.none,
      response: schemas.invitation,
      audit: { action: 'organization_invitation.revoked' },
      handle: async ({ deps, auth, params }) =>
        show.invitation(await revokeOrganizationInvitation(deps, instanceOf(auth), params.id, params.invitation_id)),
    }),

    ...domainEndpointsFor(audience),
    ...membershipRequestEndpointsFor(audience),
  };
}

/**
 * Requests to join an organization (accepted suggestions, membership-requests.ts): the same
 * view on every surface (the requester's public data only). Path parameters: `id` the
 * organization, `request_id`.
 */
function membershipRequestEndpointsFor<Auth>({ instanceOf, queries }: OrganizationAudience<Auth>) {
  return {
    listMembershipRequests: endpoint<Auth, never, LightQuery & { status?: MembershipRequestStatus }, 'id'>({
      summary: 'Requests to join the organization, oldest first (light envelope); status pending unless told',
      query: queries.membershipRequests,
      response: lightListSchema(membershipRequestSchema),
      handle: ({ deps, auth, params, query }) => listMembershipRequests(deps, instanceOf(auth), params.id, query),
    }),
    acceptMembershipRequest: endpoint<Auth, never, object, 'id' | 'request_id'>({
      summary: 'Let the requester in with the instance’s default role (organizationMembership.created)',
      query: queries.none,
      response: membershipRequestSchema,
      audit: { action: 'organization_membership_request.accepted' },
      handle: async ({ deps, auth, params }) => {
        const { membership: _joined, ...request } = await acceptMembershipRequest(deps, instanceOf(auth), params.id, params.request_id);
        return request;
      },
    }),
    rejectMembershipRequest: endpoint<Auth, never, object, 'id' | 'request_id'>({
      summary: 'Turn a request to join down',
      query: queries.none,
      response: membershipRequestSchema,
      audit: { action: 'organization_membership_request.rejected' },
      handle: ({ deps, auth, params }) => rejectMembershipRequest(deps, instanceOf(auth), params.id, params.request_id),
    }),
  };
}

/** An operation of a catalog's domain (roles, permissions) on the instance `instanceId`. */
type CatalogOp<Args extends unknown[]> = (deps: Deps, instanceId: string, ...args: Args) => Promise<unknown>;
type AuditCtx = ReturnType<typeof auditContextOf>;

/** A catalog's five CRUD endpoints on `id`, audited as `<noun>.created|updated|deleted`. */
function catalogEndpointsFor<Auth, C, U>(
  instanceOf: (auth: Auth) => string,
  noun: 'role' | 'permission',
  { schema, createBody, updateBody }: { schema: z.ZodType; createBody: z.ZodType<C>; updateBody: z.ZodType<U> },
  domain: {
    list: CatalogOp<[LightQuery]>;
    get: CatalogOp<[string]>;
    create: CatalogOp<[C, AuditCtx]>;
    update: CatalogOp<[string, U, AuditCtx]>;
    delete: CatalogOp<[string, AuditCtx]>;
  },
  summaries: { list: string; create: string; update: string; delete: string },
) {
  return {
    list: endpoint<Auth, never, Out<typeof listRolesQuery>>({
      summary: summaries.list,
      query: listRolesQuery,
      response: lightListSchema(schema),
      handle: ({ deps, auth, query }) => domain.list(deps, instanceOf(auth), query),
    }),
    create: endpoint<Auth, C>({
      summary: summaries.create,
      body: createBody,
      response: schema,
      audit: { action: `${noun}.created` },
      handle: ({ deps, auth, actor, body }) => domain.create(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: `Get a ${noun}`,
      response: schema,
      handle: ({ deps, auth, params }) => domain.get(deps, instanceOf(auth), params.id),
    }),
    update: endpoint<Auth, U, never, 'id'>({
      summary: summaries.update,
      body: updateBody,
      response: schema,
      audit: { action: `${noun}.updated` },
      handle: ({ deps, auth, actor, params, body }) => domain.update(deps, instanceOf(auth), params.id, body, auditContextOf(actor)),
    }),
    delete: endpoint<Auth, never, never, 'id'>({
      summary: summaries.delete,
      response: deletedSchema(noun),
      audit: { action: `${noun}.deleted` },
      handle: ({ deps, auth, actor, params }) => domain.delete(deps, instanceOf(auth), params.id, auditContextOf(actor)),
    }),
  };
}

/**
 * What only servers and operators do: create and list organizations,
 * bulk and single-invitation reads, a user's memberships, roles and permissions (BAPI, dashboard).
 * Path parameters: `id` the organization (or role, permission, user), `invitation_id`.
 */
export function serverOrganizationEndpointsFor<Auth>(instanceOf: (auth: Auth) => string) {
  const roles = catalogEndpointsFor(
    instanceOf,
    'role',
    { schema: roleSchema, createBody: createRoleBody, updateBody: updateRoleBody },
    { list: listRoles, get: getRole, create: createRole, update: updateRole, delete: deleteRole },
    {
      list: 'The instance’s roles (light envelope); org:admin and org:member are built in',
      create: 'Create a role: a named set of permission keys',
      update: 'Rename a role or replace its permissions (its key never changes)',
      delete: 'Delete a custom role nobody holds',
    },
  );
  const permissions = catalogEndpointsFor(
    instanceOf,
    'permission',
    { schema: permissionSchema, createBody: createPermissionBody, updateBody: updatePermissionBody },
    { list: listPermissions, get: getPermission, create: createPermission, update: updatePermission, delete: deletePermission },
    {
      list: 'The instance’s permissions, system and custom (light envelope)',
      create: 'Create a custom permission org:<feature>:<action>',
      update: 'Rename a custom permission',
      delete: 'Delete a custom permission (it leaves every role holding it)',
    },
  );
  return {
    ...organizationEndpointsFor(serverAudience(instanceOf)),
    createOrganization: endpoint<Auth, Out<typeof createOrganizationBody>>({
      summary: 'Create an organization (created_by joins with the creator role)',
      body: createOrganizationBody,
      response: organizationSchema,
      audit: { action: 'organization.created' },
      handle: ({ deps, auth, body }) => createOrganization(deps, instanceOf(auth), body),
    }),
    listOrganizations: endpoint<Auth, never, Out<typeof listOrganizationsQuery>>({
      summary: 'List organizations, newest first (cursor pagination; query, user_id filters)',
      query: listOrganizationsQuery,
      response: cursorPageSchema(organizationSchema),
      handle: ({ deps, auth, query }) => listOrganizations(deps, instanceOf(auth), query),
    }),
    listUserMemberships: endpoint<Auth, never, Out<typeof userMembershipsQuery>, 'id'>({
      summary: 'A user’s organization memberships, newest first (cursor pagination)',
      query: userMembershipsQuery,
      response: membershipCursorList,
      handle: ({ deps, auth, params, query }) => listUserMemberships(deps, instanceOf(auth), params.id, query),
    }),
    bulkCreateInvitations: endpoint<Auth, Out<typeof bulkInvitationBody>, never, 'id'>({
      summary: 'Invite up to 50 addresses at once (all or none)',
      body: bulkInvitationBody,
      response: lightListSchema(invitationSchema),
      audit: { action: 'organization_invitation.created', target: 'id' },
      handle: async ({ deps, auth, params, body }) => ({
        object: 'list' as const,
        data: await createInvitations(deps, instanceOf(auth), params.id, body),
        has_more: false,
      }),
    }),
    getInvitation: endpoint<Auth, never, never, 'id' | 'invitation_id'>({
      summary: 'Get an invitation',
      response: invitationSchema,
      handle: ({ deps, auth, params }) => getInvitation(deps, instanceOf(auth), params.id, params.invitation_id),
    }),

    listRoles: roles.list,
    createRole: roles.create,
    getRole: roles.get,
    updateRole: roles.update,
    deleteRole: roles.delete,
    listPermissions: permissions.list,
    createPermission: permissions.create,
    getPermission: permissions.get,
    updatePermission: permissions.update,
    deletePermission: permissions.delete,
  };
}
