import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { cursorPageSchema, lightListSchema } from '../http/pagination';
import type { BapiAuth } from '../keys/bapi-auth';
import { routeInstance, type ConsoleAuth } from '../operators/console-auth';
import { attemptDomainVerification, createDomain, deleteDomain, getDomain, listDomains, prepareDomainVerification, updateDomain } from './domains';
import { createInvitations, getInvitation, listInvitations, revokeInvitation } from './invitations';
import { addMembership, listOrganizationMemberships, listUserMemberships, removeMembership, updateMembership } from './memberships';
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
  invitationLightList,
  invitationSchema,
  lightQuery,
  listInvitationsQuery,
  listMembershipsQuery,
  listOrganizationsQuery,
  listRolesQuery,
  membershipCursorList,
  membershipLightList,
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

/**
 * An organization's domains, for a surface acting on the instance `instanceOf(auth)`. The FAPI
 * mounts them with bodies that cannot mark a domain verified, and a list query that also
 * takes its own parameters (`session_id`…).
 */
export function domainEndpointsFor<Auth>(
  instanceOf: (auth: Auth) => string,
  bodies: {
    create: z.ZodType<Out<typeof createDomainBody>>;
    update: z.ZodType<Out<typeof updateDomainBody>>;
    listQuery: z.ZodType<{ limit: number; starting_after?: string }>;
  } = { create: createDomainBody, update: updateDomainBody, listQuery: z.strictObject(lightQuery) },
) {
  return {
    createDomain: endpoint<Auth, Out<typeof createDomainBody>>({
      summary: 'Add a domain to an organization (public email domains are refused)',
      body: bodies.create,
      response: domainSchema,
      audit: { action: 'organization_domain.created' },
      handle: ({ deps, auth, params, body }) => createDomain(deps, instanceOf(auth), params.id!, body),
    }),
    listDomains: endpoint<Auth, never, { limit: number; starting_after?: string }>({
      summary: 'An organization’s domains (light envelope)',
      query: bodies.listQuery,
      response: domainLightList,
      handle: ({ deps, auth, params, query }) => listDomains(deps, instanceOf(auth), params.id!, query),
    }),
    getDomain: endpoint<Auth>({
      summary: 'Get a domain with its verification state and TXT record',
      response: domainSchema,
      handle: ({ deps, auth, params }) => getDomain(deps, instanceOf(auth), params.id!, params.domain_id!),
    }),
    updateDomain: endpoint<Auth, Out<typeof updateDomainBody>>({
      summary: 'Change a domain’s enrollment mode, or mark it verified',
      body: bodies.update,
      response: domainSchema,
      audit: { action: 'organization_domain.updated' },
      handle: ({ deps, auth, params, body }) => updateDomain(deps, instanceOf(auth), params.id!, params.domain_id!, body),
    }),
    deleteDomain: endpoint<Auth>({
      summary: 'Remove a domain',
      response: deletedSchema('organization_domain'),
      audit: { action: 'organization_domain.deleted' },
      handle: ({ deps, auth, params }) => deleteDomain(deps, instanceOf(auth), params.id!, params.domain_id!),
    }),
    prepareDomainVerification: endpoint<Auth, Out<typeof prepareDomainVerificationBody>>({
      summary: 'Start verifying a domain: email a code to an address at it, or get the TXT record to publish',
      body: prepareDomainVerificationBody,
      response: domainSchema,
      audit: { action: 'organization_domain.verification_prepared' },
      handle: ({ deps, auth, params, body }) => prepareDomainVerification(deps, instanceOf(auth), params.id!, params.domain_id!, body),
    }),
    attemptDomainVerification: endpoint<Auth, Out<typeof attemptDomainVerificationBody>>({
      summary: 'Complete a domain verification: the emailed code, or a TXT record lookup',
      body: attemptDomainVerificationBody,
      response: domainSchema,
      audit: { action: 'organization_domain.verification_attempted' },
      handle: ({ deps, auth, params, body }) => attemptDomainVerification(deps, instanceOf(auth), params.id!, params.domain_id!, body),
    }),
  };
}

/**
 * The endpoints of organizations, memberships, invitations, domains, roles and permissions,
 * for a surface whose caller acts on the instance `instanceOf(auth)` names (BAPI, dashboard).
 * Path parameters: `id` the organization (or role, permission), `user_id`, `invitation_id`, `domain_id`.
 */
function organizationEndpointsFor<Auth>(instanceOf: (auth: Auth) => string) {
  return {
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
    getOrganization: endpoint<Auth>({
      summary: 'Get an organization by id or slug',
      response: organizationSchema,
      handle: ({ deps, auth, params }) => getOrganization(deps, instanceOf(auth), params.id!),
    }),
    updateOrganization: endpoint<Auth, Out<typeof updateOrganizationBody>>({
      summary: 'Update an organization (metadata is deep-merged; null deletes a key)',
      body: updateOrganizationBody,
      response: organizationSchema,
      audit: { action: 'organization.updated' },
      handle: ({ deps, auth, params, body }) => updateOrganization(deps, instanceOf(auth), params.id!, body),
    }),
    deleteOrganization: endpoint<Auth>({
      summary: 'Delete an organization: its memberships are removed and pending invitations revoked',
      response: deletedSchema('organization'),
      audit: { action: 'organization.deleted' },
      handle: ({ deps, auth, actor, params }) => deleteOrganization(deps, instanceOf(auth), params.id!, auditContextOf(actor)),
    }),

    createMembership: endpoint<Auth, Out<typeof createMembershipBody>>({
      summary: 'Add a user to an organization (default role from the instance settings)',
      body: createMembershipBody,
      response: membershipSchema,
      audit: { action: 'organization_membership.created' },
      handle: ({ deps, auth, actor, params, body }) => addMembership(deps, instanceOf(auth), params.id!, body, auditContextOf(actor)),
    }),
    listMemberships: endpoint<Auth, never, Out<typeof listMembershipsQuery>>({
      summary: 'The members of an organization, oldest first (light envelope)',
      query: listMembershipsQuery,
      response: membershipLightList,
      handle: ({ deps, auth, params, query }) => listOrganizationMemberships(deps, instanceOf(auth), params.id!, query),
    }),
    // The domain records a role change as organization_membership.role_changed; the router a metadata-only update.
    updateMembership: endpoint<Auth, Out<typeof updateMembershipBody>>({
      summary: 'Change a member’s role or metadata (the last admin cannot be demoted)',
      body: updateMembershipBody,
      response: membershipSchema,
      audit: { action: 'organization_membership.updated' },
      handle: ({ deps, auth, actor, params, body }) =>
        updateMembership(deps, instanceOf(auth), params.id!, params.user_id!, body, auditContextOf(actor)),
    }),
    deleteMembership: endpoint<Auth>({
      summary: 'Remove a member (the last admin cannot be removed)',
      response: membershipSchema.extend({ deleted: z.literal(true) }),
      audit: { action: 'organization_membership.deleted' },
      handle: ({ deps, auth, actor, params }) => removeMembership(deps, instanceOf(auth), params.id!, params.user_id!, auditContextOf(actor)),
    }),
    listUserMemberships: endpoint<Auth, never, Out<typeof userMembershipsQuery>>({
      summary: 'A user’s organization memberships, newest first (cursor pagination)',
      query: userMembershipsQuery,
      response: membershipCursorList,
      handle: ({ deps, auth, params, query }) => listUserMemberships(deps, instanceOf(auth), params.id!, query),
    }),

    createInvitation: endpoint<Auth, Out<typeof createInvitationBody>>({
      summary: 'Invite an email address to an organization; the invitation email carries the accept link',
      body: createInvitationBody,
      response: invitationSchema,
      audit: { action: 'organization_invitation.created' },
      handle: async ({ deps, auth, params, body }) => (await createInvitations(deps, instanceOf(auth), params.id!, [body]))[0]!,
    }),
    bulkCreateInvitations: endpoint<Auth, Out<typeof bulkInvitationBody>>({
      summary: 'Invite up to 50 addresses at once (all or none)',
      body: bulkInvitationBody,
      response: lightListSchema(invitationSchema),
      audit: { action: 'organization_invitation.created', target: 'id' },
      handle: async ({ deps, auth, params, body }) => ({
        object: 'list' as const,
        data: await createInvitations(deps, instanceOf(auth), params.id!, body),
        has_more: false,
      }),
    }),
    listInvitations: endpoint<Auth, never, Out<typeof listInvitationsQuery>>({
      summary: 'An organization’s invitations, oldest first (light envelope; status filter)',
      query: listInvitationsQuery,
      response: invitationLightList,
      handle: ({ deps, auth, params, query }) => listInvitations(deps, instanceOf(auth), params.id!, query),
    }),
    getInvitation: endpoint<Auth>({
      summary: 'Get an invitation',
      response: invitationSchema,
      handle: ({ deps, auth, params }) => getInvitation(deps, instanceOf(auth), params.id!, params.invitation_id!),
    }),
    revokeInvitation: endpoint<Auth>({
      summary: 'Revoke a pending invitation',
      response: invitationSchema,
      audit: { action: 'organization_invitation.revoked' },
      handle: ({ deps, auth, params }) => revokeInvitation(deps, instanceOf(auth), params.id!, params.invitation_id!),
    }),

    ...domainEndpointsFor(instanceOf),

    listRoles: endpoint<Auth, never, Out<typeof listRolesQuery>>({
      summary: 'The instance’s roles (light envelope); org:admin and org:member are built in',
      query: listRolesQuery,
      response: lightListSchema(roleSchema),
      handle: ({ deps, auth, query }) => listRoles(deps, instanceOf(auth), query),
    }),
    createRole: endpoint<Auth, Out<typeof createRoleBody>>({
      summary: 'Create a role: a named set of permission keys',
      body: createRoleBody,
      response: roleSchema,
      audit: { action: 'role.created' },
      handle: ({ deps, auth, actor, body }) => createRole(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    getRole: endpoint<Auth>({
      summary: 'Get a role',
      response: roleSchema,
      handle: ({ deps, auth, params }) => getRole(deps, instanceOf(auth), params.id!),
    }),
    updateRole: endpoint<Auth, Out<typeof updateRoleBody>>({
      summary: 'Rename a role or replace its permissions (its key never changes)',
      body: updateRoleBody,
      response: roleSchema,
      audit: { action: 'role.updated' },
      handle: ({ deps, auth, actor, params, body }) => updateRole(deps, instanceOf(auth), params.id!, body, auditContextOf(actor)),
    }),
    deleteRole: endpoint<Auth>({
      summary: 'Delete a custom role nobody holds',
      response: deletedSchema('role'),
      audit: { action: 'role.deleted' },
      handle: ({ deps, auth, actor, params }) => deleteRole(deps, instanceOf(auth), params.id!, auditContextOf(actor)),
    }),
    listPermissions: endpoint<Auth, never, Out<typeof listRolesQuery>>({
      summary: 'The instance’s permissions, system and custom (light envelope)',
      query: listRolesQuery,
      response: lightListSchema(permissionSchema),
      handle: ({ deps, auth, query }) => listPermissions(deps, instanceOf(auth), query),
    }),
    createPermission: endpoint<Auth, Out<typeof createPermissionBody>>({
      summary: 'Create a custom permission org:<feature>:<action>',
      body: createPermissionBody,
      response: permissionSchema,
      audit: { action: 'permission.created' },
      handle: ({ deps, auth, actor, body }) => createPermission(deps, instanceOf(auth), body, auditContextOf(actor)),
    }),
    getPermission: endpoint<Auth>({
      summary: 'Get a permission',
      response: permissionSchema,
      handle: ({ deps, auth, params }) => getPermission(deps, instanceOf(auth), params.id!),
    }),
    updatePermission: endpoint<Auth, Out<typeof updatePermissionBody>>({
      summary: 'Rename a custom permission',
      body: updatePermissionBody,
      response: permissionSchema,
      audit: { action: 'permission.updated' },
      handle: ({ deps, auth, actor, params, body }) => updatePermission(deps, instanceOf(auth), params.id!, body, auditContextOf(actor)),
    }),
    deletePermission: endpoint<Auth>({
      summary: 'Delete a custom permission (it leaves every role holding it)',
      response: deletedSchema('permission'),
      audit: { action: 'permission.deleted' },
      handle: ({ deps, auth, actor, params }) => deletePermission(deps, instanceOf(auth), params.id!, auditContextOf(actor)),
    }),
  };
}

/** BAPI: the key's instance. */
export const bapiOrganizations = organizationEndpointsFor<BapiAuth>((auth) => auth.instance.id);

/** Dashboard: the route's instance (of an account the operator belongs to). */
export const dashboardOrganizations = organizationEndpointsFor<ConsoleAuth>((auth) => routeInstance(auth).id);
