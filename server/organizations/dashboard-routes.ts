import { z } from 'zod';
import { endpoint } from '../http/endpoint';
import { cursorPageSchema, lightListSchema } from '../http/pagination';
import { routeInstance, type ConsoleAuth } from '../operators/console-auth';
import { createDomain, deleteDomain, listDomains, updateDomain } from './domains';
import { createInvitations, listInvitations, revokeInvitation } from './invitations';
import { addMembership, listOrganizationMemberships, removeMembership, updateMembership } from './memberships';
import { createOrganization, deleteOrganization, getOrganization, listOrganizations, updateOrganization } from './organizations';
import { createPermission, createRole, deletePermission, deleteRole, listPermissions, listRoles, updatePermission, updateRole } from './roles';
import {
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
  membershipLightList,
  membershipSchema,
  organizationSchema,
  permissionSchema,
  roleSchema,
  updateDomainBody,
  updateMembershipBody,
  updateOrganizationBody,
  updatePermissionBody,
  updateRoleBody,
} from './schemas';

/**
 * The console's organization pages and roles editor (server/api/dashboard): the same
 * domain functions as BAPI, on the route's instance, audited as the operator.
 */

type Out<T extends z.ZodType> = z.output<T>;
const instanceId = (auth: ConsoleAuth) => routeInstance(auth).id;
const auditOf = (auth: ConsoleAuth) => ({ actor: auth.actor, ip: auth.request.ip, userAgent: auth.request.userAgent });

export const listOrganizationsEndpoint = endpoint<ConsoleAuth, never, Out<typeof listOrganizationsQuery>>({
  summary: 'Organizations, newest first (cursor pagination; query searches name, slug and id)',
  query: listOrganizationsQuery,
  response: cursorPageSchema(organizationSchema),
  handle: ({ deps, auth, query }) => listOrganizations(deps, instanceId(auth), query),
});

export const createOrganizationEndpoint = endpoint<ConsoleAuth, Out<typeof createOrganizationBody>>({
  summary: 'Create an organization',
  body: createOrganizationBody,
  response: organizationSchema,
  handle: ({ deps, auth, body }) => createOrganization(deps, instanceId(auth), body),
});

export const getOrganizationEndpoint = endpoint<ConsoleAuth>({
  summary: 'An organization',
  response: organizationSchema,
  handle: ({ deps, auth, params }) => getOrganization(deps, instanceId(auth), params.orgId!),
});

export const updateOrganizationEndpoint = endpoint<ConsoleAuth, Out<typeof updateOrganizationBody>>({
  summary: 'Update an organization (metadata deep-merged)',
  body: updateOrganizationBody,
  response: organizationSchema,
  handle: ({ deps, auth, params, body }) => updateOrganization(deps, instanceId(auth), params.orgId!, body),
});

export const deleteOrganizationEndpoint = endpoint<ConsoleAuth>({
  summary: 'Delete an organization (memberships removed, invitations revoked)',
  response: deletedSchema('organization'),
  handle: ({ deps, auth, params }) => deleteOrganization(deps, instanceId(auth), params.orgId!, auditOf(auth)),
});

export const listMembershipsEndpoint = endpoint<ConsoleAuth, never, Out<typeof listMembershipsQuery>>({
  summary: 'The members of an organization with their roles',
  query: listMembershipsQuery,
  response: membershipLightList,
  handle: ({ deps, auth, params, query }) => listOrganizationMemberships(deps, instanceId(auth), params.orgId!, query),
});

export const createMembershipEndpoint = endpoint<ConsoleAuth, Out<typeof createMembershipBody>>({
  summary: 'Add a user to an organization',
  body: createMembershipBody,
  response: membershipSchema,
  handle: ({ deps, auth, params, body }) => addMembership(deps, instanceId(auth), params.orgId!, body, auditOf(auth)),
});

export const updateMembershipEndpoint = endpoint<ConsoleAuth, Out<typeof updateMembershipBody>>({
  summary: 'Change a member’s role or metadata',
  body: updateMembershipBody,
  response: membershipSchema,
  handle: ({ deps, auth, params, body }) => updateMembership(deps, instanceId(auth), params.orgId!, params.userId!, body, auditOf(auth)),
});

export const removeMembershipEndpoint = endpoint<ConsoleAuth>({
  summary: 'Remove a member',
  response: membershipSchema.extend({ deleted: z.literal(true) }),
  handle: ({ deps, auth, params }) => removeMembership(deps, instanceId(auth), params.orgId!, params.userId!, auditOf(auth)),
});

export const listInvitationsEndpoint = endpoint<ConsoleAuth, never, Out<typeof listInvitationsQuery>>({
  summary: 'An organization’s invitations',
  query: listInvitationsQuery,
  response: invitationLightList,
  handle: ({ deps, auth, params, query }) => listInvitations(deps, instanceId(auth), params.orgId!, query),
});

export const createInvitationEndpoint = endpoint<ConsoleAuth, Out<typeof createInvitationBody>>({
  summary: 'Invite an email address to an organization',
  body: createInvitationBody,
  response: invitationSchema,
  handle: async ({ deps, auth, params, body }) => (await createInvitations(deps, instanceId(auth), params.orgId!, [body]))[0]!,
});

export const revokeInvitationEndpoint = endpoint<ConsoleAuth>({
  summary: 'Revoke a pending invitation',
  response: invitationSchema,
  handle: ({ deps, auth, params }) => revokeInvitation(deps, instanceId(auth), params.orgId!, params.invitationId!),
});

export const listDomainsEndpoint = endpoint<ConsoleAuth, never, { limit: number; starting_after?: string }>({
  summary: 'An organization’s domains with their verification state',
  query: z.strictObject(lightQuery),
  response: domainLightList,
  handle: ({ deps, auth, params, query }) => listDomains(deps, instanceId(auth), params.orgId!, query),
});

export const createDomainEndpoint = endpoint<ConsoleAuth, Out<typeof createDomainBody>>({
  summary: 'Add a domain (verified: true trusts it without a check)',
  body: createDomainBody,
  response: domainSchema,
  handle: ({ deps, auth, params, body }) => createDomain(deps, instanceId(auth), params.orgId!, body),
});

export const updateDomainEndpoint = endpoint<ConsoleAuth, Out<typeof updateDomainBody>>({
  summary: 'Change a domain’s enrollment mode or verification',
  body: updateDomainBody,
  response: domainSchema,
  handle: ({ deps, auth, params, body }) => updateDomain(deps, instanceId(auth), params.orgId!, params.domainId!, body),
});

export const deleteDomainEndpoint = endpoint<ConsoleAuth>({
  summary: 'Remove a domain',
  response: deletedSchema('organization_domain'),
  handle: ({ deps, auth, params }) => deleteDomain(deps, instanceId(auth), params.orgId!, params.domainId!),
});

export const listRolesEndpoint = endpoint<ConsoleAuth, never, Out<typeof listRolesQuery>>({
  summary: 'The instance’s roles',
  query: listRolesQuery,
  response: lightListSchema(roleSchema),
  handle: ({ deps, auth, query }) => listRoles(deps, instanceId(auth), query),
});

export const createRoleEndpoint = endpoint<ConsoleAuth, Out<typeof createRoleBody>>({
  summary: 'Create a role',
  body: createRoleBody,
  response: roleSchema,
  handle: ({ deps, auth, body }) => createRole(deps, instanceId(auth), body, auditOf(auth)),
});

export const updateRoleEndpoint = endpoint<ConsoleAuth, Out<typeof updateRoleBody>>({
  summary: 'Rename a role or replace its permissions',
  body: updateRoleBody,
  response: roleSchema,
  handle: ({ deps, auth, params, body }) => updateRole(deps, instanceId(auth), params.roleId!, body, auditOf(auth)),
});

export const deleteRoleEndpoint = endpoint<ConsoleAuth>({
  summary: 'Delete a custom role nobody holds',
  response: deletedSchema('role'),
  handle: ({ deps, auth, params }) => deleteRole(deps, instanceId(auth), params.roleId!, auditOf(auth)),
});

export const listPermissionsEndpoint = endpoint<ConsoleAuth, never, Out<typeof listRolesQuery>>({
  summary: 'The instance’s permissions, system and custom',
  query: listRolesQuery,
  response: lightListSchema(permissionSchema),
  handle: ({ deps, auth, query }) => listPermissions(deps, instanceId(auth), query),
});

export const createPermissionEndpoint = endpoint<ConsoleAuth, Out<typeof createPermissionBody>>({
  summary: 'Create a custom permission',
  body: createPermissionBody,
  response: permissionSchema,
  handle: ({ deps, auth, body }) => createPermission(deps, instanceId(auth), body, auditOf(auth)),
});

export const updatePermissionEndpoint = endpoint<ConsoleAuth, Out<typeof updatePermissionBody>>({
  summary: 'Rename a custom permission',
  body: updatePermissionBody,
  response: permissionSchema,
  handle: ({ deps, auth, params, body }) => updatePermission(deps, instanceId(auth), params.permissionId!, body, auditOf(auth)),
});

export const deletePermissionEndpoint = endpoint<ConsoleAuth>({
  summary: 'Delete a custom permission',
  response: deletedSchema('permission'),
  handle: ({ deps, auth, params }) => deletePermission(deps, instanceId(auth), params.permissionId!, auditOf(auth)),
});
