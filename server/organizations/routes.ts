import { z } from 'zod';
import { endpoint } from '../http/endpoint';
import { cursorPageSchema, lightListSchema } from '../http/pagination';
import type { BapiAuth } from '../keys/bapi-auth';
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

/** BAPI endpoints of organizations, memberships, invitations, domains, roles and permissions. */

type Out<T extends z.ZodType> = z.output<T>;

const auditOf = (auth: BapiAuth, request: { ip: string | null; userAgent: string | null }) => ({ actor: auth.actor, ip: request.ip, userAgent: request.userAgent });

// --- Organizations ---

export const createOrganizationEndpoint = endpoint<BapiAuth, Out<typeof createOrganizationBody>>({
  summary: 'Create an organization (created_by joins with the creator role)',
  body: createOrganizationBody,
  response: organizationSchema,
  handle: ({ deps, auth, body }) => createOrganization(deps, auth.instance.id, body),
});

export const listOrganizationsEndpoint = endpoint<BapiAuth, never, Out<typeof listOrganizationsQuery>>({
  summary: 'List organizations, newest first (cursor pagination; query, user_id filters)',
  query: listOrganizationsQuery,
  response: cursorPageSchema(organizationSchema),
  handle: ({ deps, auth, query }) => listOrganizations(deps, auth.instance.id, query),
});

export const getOrganizationEndpoint = endpoint<BapiAuth>({
  summary: 'Get an organization by id or slug',
  response: organizationSchema,
  handle: ({ deps, auth, params }) => getOrganization(deps, auth.instance.id, params.id!),
});

export const updateOrganizationEndpoint = endpoint<BapiAuth, Out<typeof updateOrganizationBody>>({
  summary: 'Update an organization (metadata is deep-merged; null deletes a key)',
  body: updateOrganizationBody,
  response: organizationSchema,
  handle: ({ deps, auth, params, body }) => updateOrganization(deps, auth.instance.id, params.id!, body),
});

export const deleteOrganizationEndpoint = endpoint<BapiAuth>({
  summary: 'Delete an organization: its memberships are removed and pending invitations revoked',
  response: deletedSchema('organization'),
  handle: ({ deps, auth, params, request }) => deleteOrganization(deps, auth.instance.id, params.id!, auditOf(auth, request)),
});

// --- Memberships ---

export const createMembershipEndpoint = endpoint<BapiAuth, Out<typeof createMembershipBody>>({
  summary: 'Add a user to an organization (default role from the instance settings)',
  body: createMembershipBody,
  response: membershipSchema,
  handle: ({ deps, auth, params, body, request }) => addMembership(deps, auth.instance.id, params.id!, body, auditOf(auth, request)),
});

export const listMembershipsEndpoint = endpoint<BapiAuth, never, Out<typeof listMembershipsQuery>>({
  summary: 'The members of an organization, oldest first (light envelope)',
  query: listMembershipsQuery,
  response: membershipLightList,
  handle: ({ deps, auth, params, query }) => listOrganizationMemberships(deps, auth.instance.id, params.id!, query),
});

export const updateMembershipEndpoint = endpoint<BapiAuth, Out<typeof updateMembershipBody>>({
  summary: 'Change a member’s role or metadata (the last admin cannot be demoted)',
  body: updateMembershipBody,
  response: membershipSchema,
  handle: ({ deps, auth, params, body, request }) => updateMembership(deps, auth.instance.id, params.id!, params.user_id!, body, auditOf(auth, request)),
});

export const deleteMembershipEndpoint = endpoint<BapiAuth>({
  summary: 'Remove a member (the last admin cannot be removed)',
  response: membershipSchema.extend({ deleted: z.literal(true) }),
  handle: ({ deps, auth, params, request }) => removeMembership(deps, auth.instance.id, params.id!, params.user_id!, auditOf(auth, request)),
});

export const listUserMembershipsEndpoint = endpoint<BapiAuth, never, Out<typeof userMembershipsQuery>>({
  summary: 'A user’s organization memberships, newest first (cursor pagination)',
  query: userMembershipsQuery,
  response: membershipCursorList,
  handle: ({ deps, auth, params, query }) => listUserMemberships(deps, auth.instance.id, params.id!, query),
});

// --- Invitations ---

export const createInvitationEndpoint = endpoint<BapiAuth, Out<typeof createInvitationBody>>({
  summary: 'Invite an email address to an organization; the invitation email carries the accept link',
  body: createInvitationBody,
  response: invitationSchema,
  handle: async ({ deps, auth, params, body }) => (await createInvitations(deps, auth.instance.id, params.id!, [body]))[0]!,
});

export const bulkCreateInvitationsEndpoint = endpoint<BapiAuth, Out<typeof bulkInvitationBody>>({
  summary: 'Invite up to 50 addresses at once (all or none)',
  body: bulkInvitationBody,
  response: lightListSchema(invitationSchema),
  handle: async ({ deps, auth, params, body }) => ({
    object: 'list' as const,
    data: await createInvitations(deps, auth.instance.id, params.id!, body),
    has_more: false,
  }),
});

export const listInvitationsEndpoint = endpoint<BapiAuth, never, Out<typeof listInvitationsQuery>>({
  summary: 'An organization’s invitations, oldest first (light envelope; status filter)',
  query: listInvitationsQuery,
  response: invitationLightList,
  handle: ({ deps, auth, params, query }) => listInvitations(deps, auth.instance.id, params.id!, query),
});

export const getInvitationEndpoint = endpoint<BapiAuth>({
  summary: 'Get an invitation',
  response: invitationSchema,
  handle: ({ deps, auth, params }) => getInvitation(deps, auth.instance.id, params.id!, params.invitation_id!),
});

export const revokeInvitationEndpoint = endpoint<BapiAuth>({
  summary: 'Revoke a pending invitation',
  response: invitationSchema,
  handle: ({ deps, auth, params }) => revokeInvitation(deps, auth.instance.id, params.id!, params.invitation_id!),
});

// --- Domains ---

export const createDomainEndpoint = endpoint<BapiAuth, Out<typeof createDomainBody>>({
  summary: 'Add a domain to an organization (public email domains are refused)',
  body: createDomainBody,
  response: domainSchema,
  handle: ({ deps, auth, params, body }) => createDomain(deps, auth.instance.id, params.id!, body),
});

export const listDomainsEndpoint = endpoint<BapiAuth, never, { limit: number; starting_after?: string }>({
  summary: 'An organization’s domains (light envelope)',
  query: z.strictObject(lightQuery),
  response: domainLightList,
  handle: ({ deps, auth, params, query }) => listDomains(deps, auth.instance.id, params.id!, query),
});

export const getDomainEndpoint = endpoint<BapiAuth>({
  summary: 'Get a domain with its verification state and TXT record',
  response: domainSchema,
  handle: ({ deps, auth, params }) => getDomain(deps, auth.instance.id, params.id!, params.domain_id!),
});

export const updateDomainEndpoint = endpoint<BapiAuth, Out<typeof updateDomainBody>>({
  summary: 'Change a domain’s enrollment mode, or mark it verified',
  body: updateDomainBody,
  response: domainSchema,
  handle: ({ deps, auth, params, body }) => updateDomain(deps, auth.instance.id, params.id!, params.domain_id!, body),
});

export const deleteDomainEndpoint = endpoint<BapiAuth>({
  summary: 'Remove a domain',
  response: deletedSchema('organization_domain'),
  handle: ({ deps, auth, params }) => deleteDomain(deps, auth.instance.id, params.id!, params.domain_id!),
});

export const prepareDomainVerificationEndpoint = endpoint<BapiAuth, Out<typeof prepareDomainVerificationBody>>({
  summary: 'Start verifying a domain: email a code to an address at it, or get the TXT record to publish',
  body: prepareDomainVerificationBody,
  response: domainSchema,
  handle: ({ deps, auth, params, body }) => prepareDomainVerification(deps, auth.instance.id, params.id!, params.domain_id!, body),
});

export const attemptDomainVerificationEndpoint = endpoint<BapiAuth, Out<typeof attemptDomainVerificationBody>>({
  summary: 'Complete a domain verification: the emailed code, or a TXT record lookup',
  body: attemptDomainVerificationBody,
  response: domainSchema,
  handle: ({ deps, auth, params, body }) => attemptDomainVerification(deps, auth.instance.id, params.id!, params.domain_id!, body),
});

// --- Roles and permissions ---

export const listRolesEndpoint = endpoint<BapiAuth, never, Out<typeof listRolesQuery>>({
  summary: 'The instance’s roles (light envelope); org:admin and org:member are built in',
  query: listRolesQuery,
  response: lightListSchema(roleSchema),
  handle: ({ deps, auth, query }) => listRoles(deps, auth.instance.id, query),
});

export const createRoleEndpoint = endpoint<BapiAuth, Out<typeof createRoleBody>>({
  summary: 'Create a role: a named set of permission keys',
  body: createRoleBody,
  response: roleSchema,
  handle: ({ deps, auth, body, request }) => createRole(deps, auth.instance.id, body, auditOf(auth, request)),
});

export const getRoleEndpoint = endpoint<BapiAuth>({
  summary: 'Get a role',
  response: roleSchema,
  handle: ({ deps, auth, params }) => getRole(deps, auth.instance.id, params.id!),
});

export const updateRoleEndpoint = endpoint<BapiAuth, Out<typeof updateRoleBody>>({
  summary: 'Rename a role or replace its permissions (its key never changes)',
  body: updateRoleBody,
  response: roleSchema,
  handle: ({ deps, auth, params, body, request }) => updateRole(deps, auth.instance.id, params.id!, body, auditOf(auth, request)),
});

export const deleteRoleEndpoint = endpoint<BapiAuth>({
  summary: 'Delete a custom role nobody holds',
  response: deletedSchema('role'),
  handle: ({ deps, auth, params, request }) => deleteRole(deps, auth.instance.id, params.id!, auditOf(auth, request)),
});

export const listPermissionsEndpoint = endpoint<BapiAuth, never, Out<typeof listRolesQuery>>({
  summary: 'The instance’s permissions, system and custom (light envelope)',
  query: listRolesQuery,
  response: lightListSchema(permissionSchema),
  handle: ({ deps, auth, query }) => listPermissions(deps, auth.instance.id, query),
});

export const createPermissionEndpoint = endpoint<BapiAuth, Out<typeof createPermissionBody>>({
  summary: 'Create a custom permission org:<feature>:<action>',
  body: createPermissionBody,
  response: permissionSchema,
  handle: ({ deps, auth, body, request }) => createPermission(deps, auth.instance.id, body, auditOf(auth, request)),
});

export const getPermissionEndpoint = endpoint<BapiAuth>({
  summary: 'Get a permission',
  response: permissionSchema,
  handle: ({ deps, auth, params }) => getPermission(deps, auth.instance.id, params.id!),
});

export const updatePermissionEndpoint = endpoint<BapiAuth, Out<typeof updatePermissionBody>>({
  summary: 'Rename a custom permission',
  body: updatePermissionBody,
  response: permissionSchema,
  handle: ({ deps, auth, params, body, request }) => updatePermission(deps, auth.instance.id, params.id!, body, auditOf(auth, request)),
});

export const deletePermissionEndpoint = endpoint<BapiAuth>({
  summary: 'Delete a custom permission (it leaves every role holding it)',
  response: deletedSchema('permission'),
  handle: ({ deps, auth, params, request }) => deletePermission(deps, auth.instance.id, params.id!, auditOf(auth, request)),
});
