import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { storedImageResult } from '../../http/images';
import { organizationLogoImage, organizationLogoUploadSchema } from '../../organizations/logo';
import { auditContextOf } from '../../http/actor';
import { AppError } from '../../http/errors';
import { lightListSchema } from '../../http/pagination';
import type { FapiAuth, OrgMemberAuth, SignedInAuth } from './authenticate';
import { REASONS } from '../../organizations/reasons';
import { meQuery, type MeQuery } from './users';
import { organizationEndpointsFor } from '../../organizations/endpoints';
import { portalLinkEndpointFor } from '../../portal/endpoints';
import { publicInvitationView } from '../../organizations/invitation-view';
import { acceptOrganizationInvitation, listUserInvitations, previewInvitation } from '../../organizations/invitations';
import { membershipsWithUsers, membershipView, publicMembershipView, removeMembership } from '../../organizations/memberships';
import { publicOrganizationView } from '../../organizations/organization-view';
import { createOrganization } from '../../organizations/organizations';
import {
  createDomainBody,
  createMembershipBody,
  lightQuery,
  listInvitationsQuery,
  listMembershipRequestsQuery,
  listMembershipsQuery,
  publicInvitationSchema,
  publicMembershipSchema,
  publicOrganizationSchema,
  slug,
  updateDomainBody,
} from '../../organizations/schemas';
import { acceptSuggestion, listUserSuggestions } from '../../organizations/suggestions';

/**
 * FAPI endpoints of organizations, for the signed-in user (a live session; personal
 * access tokens are not accepted). The route table (server/api/fapi) names the
 * permission each needs; the router resolves the user and their membership first
 * (server/api/fapi/authenticate.ts): without the permission 403 FORBIDDEN (reason
 * `missing_permission`, meta.permission); an organization the user is not a member of
 * is 404; everything answers 403 (reason `organizations_disabled`) when the instance
 * turned organizations off.
 */

const membershipList = lightListSchema(publicMembershipSchema);

const createOrgBody = z.strictObject({ name: z.string().trim().min(1).max(256), slug: slug.optional() });

const roleBody = z.strictObject({ role: z.string().min(1).max(64) });
const inviteBody = z.strictObject({
  email_address: z
    .string()
    .trim()
    .max(320)
    .pipe(z.email({ message: 'must be a valid email address' })),
  role: z.string().min(1).max(64).optional(),
  redirect_url: z.string().max(2048).optional(),
});

/**
 * The organization, its members, invitations and domains as on BAPI, for a member whose role
 * holds the permission the route table names: public views, no metadata in bodies, the invitation
 * made by the user, and a domain is never marked verified here. A member added directly
 * (`POST …/memberships`, Clerk's `organization.addMember`) must already be a user of the instance.
 */
export const memberOrganizations = organizationEndpointsFor<OrgMemberAuth>({
  instanceOf: (auth) => auth.instance.id,
  show: { organization: publicOrganizationView, membership: publicMembershipView, invitation: publicInvitationView },
  schemas: { organization: publicOrganizationSchema, membership: publicMembershipSchema, invitation: publicInvitationSchema },
  bodies: {
    updateOrganization: z.strictObject({ name: z.string().trim().min(1).max(256).optional(), slug: slug.optional() }),
    createMembership: createMembershipBody.omit({ public_metadata: true, private_metadata: true }),
    updateMembership: roleBody,
    createInvitation: inviteBody,
    createDomain: createDomainBody.omit({ verified: true }),
    updateDomain: updateDomainBody.omit({ verified: true }),
    setLogo: organizationLogoUploadSchema,
  },
  queries: {
    none: meQuery,
    light: meQuery.extend(lightQuery),
    memberships: meQuery.extend(listMembershipsQuery.shape),
    invitations: meQuery.extend(listInvitationsQuery.shape),
    membershipRequests: meQuery.extend(listMembershipRequestsQuery.shape),
  },
  inviterOf: (auth) => auth.me.userId,
});

const invitationList = lightListSchema(publicInvitationSchema);

const acceptedSchema = z.object({
  object: z.literal('organization_invitation_acceptance'),
  invitation: publicInvitationSchema,
  membership: publicMembershipSchema,
});
const accepted = (r: Awaited<ReturnType<typeof acceptOrganizationInvitation>>) => ({
  object: 'organization_invitation_acceptance' as const,
  invitation: publicInvitationView(r.invitation),
  membership: publicMembershipView(r.membership),
});

const tokenBody = z.strictObject({ token: z.string().min(1).max(128) });

const invitationPreviewSchema = z.object({
  object: z.literal('organization_invitation_preview'),
  email_address: z.string(),
  status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
  organization: z.object({ name: z.string(), image_url: z.string().nullable() }),
  role: z.object({ key: z.string(), name: z.string() }),
  inviter_name: z.string().nullable(),
  expires_at: z.number().int(),
});

const suggestionSchema = z.object({
  object: z.literal('organization_suggestion'),
  id: z.string(),
  status: z.enum(['pending', 'accepted']),
  public_organization_data: publicInvitationSchema.shape.public_organization_data,
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

const suggestionsQuery = meQuery.extend({
  /** One status or several, repeated or comma-separated (clerk-js sends a list either way): `pending` (default), `accepted`. */
  status: z
    .union([z.string().max(64), z.array(z.string().max(64)).max(4)])
    .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((one) => one.split(',')))
    .pipe(z.array(z.enum(['pending', 'accepted'])).min(1))
    .optional(),
});

export const myMemberships = {
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'The signed-in user’s organization memberships (light envelope)',
    query: meQuery,
    response: membershipList,
    handle: async ({ deps, auth }) => {
      const { me } = auth;
      const rows = await membershipsWithUsers(deps.db, auth.instance.id, { userId: me.userId, limit: 501 });
      return {
        object: 'list' as const,
        data: rows.slice(0, 500).map((r) => publicMembershipView(membershipView(r))),
        has_more: rows.length > 500,
      };
    },
  }),
  leave: endpoint<OrgMemberAuth, never, MeQuery>({
    summary: 'Leave an organization (the last admin cannot)',
    audit: { action: 'organization_membership.deleted' },
    query: meQuery,
    response: publicMembershipSchema.extend({ deleted: z.literal(true) }),
    handle: async ({ deps, auth, actor }) => {
      const {
        me,
        org: { organization: org },
      } = auth;
      return {
        ...publicMembershipView(await removeMembership(deps, auth.instance.id, org.id, me.userId, auditContextOf(actor))),
        deleted: true as const,
      };
    },
  }),
};

export const myOrganizations = {
  create: endpoint<SignedInAuth, z.output<typeof createOrgBody>, MeQuery>({
    summary: 'Create an organization, joining it with the creator role (when the instance allows it)',
    audit: { action: 'organization.created' },
    body: createOrgBody,
    query: meQuery,
    response: publicOrganizationSchema,
    handle: async ({ deps, auth, body }) => {
      const { me } = auth;
      if (!auth.instance.settings.organization_creation_enabled) {
        throw new AppError('FORBIDDEN', {
          message: 'Users cannot create organizations in this application.',
          meta: { reason: REASONS.organization_creation_disabled },
        });
      }
      return publicOrganizationView(await createOrganization(deps, auth.instance.id, { ...body, created_by: me.userId }));
    },
  }),
};

export const myInvitations = {
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'Pending invitations to the signed-in user’s verified email addresses',
    query: meQuery,
    response: invitationList,
    handle: async ({ deps, auth }) => {
      const { me } = auth;
      const list = await listUserInvitations(deps, auth.instance.id, me.userId);
      return { ...list, data: list.data.map(publicInvitationView) };
    },
  }),
  accept: endpoint<SignedInAuth, never, MeQuery, 'id'>({
    summary: 'Accept an invitation to one of the user’s verified addresses: the user joins with its role',
    audit: { action: 'organization_invitation.accepted' },
    query: meQuery,
    response: acceptedSchema,
    handle: async ({ deps, auth, params }) => {
      const { me } = auth;
      return accepted(await acceptOrganizationInvitation(deps, auth.instance.id, me.userId, { id: params.id }));
    },
  }),
  acceptByToken: endpoint<SignedInAuth, z.output<typeof tokenBody>, MeQuery>({
    summary: 'Accept the invitation of an accept link’s invitation_token (the user must hold the invited address, verified)',
    audit: { action: 'organization_invitation.accepted' },
    body: tokenBody,
    query: meQuery,
    response: acceptedSchema,
    handle: async ({ deps, auth, body }) => {
      const { me } = auth;
      return accepted(await acceptOrganizationInvitation(deps, auth.instance.id, me.userId, { token: body.token }));
    },
  }),
};

export const invitationTokens = {
  preview: endpoint<FapiAuth, z.output<typeof tokenBody>>({
    summary:
      'What an accept link’s invitation_token invites to, before signing in: the organization, the inviter, the role and the invited address',
    audit: { unaudited: 'a read sent as POST, so the token stays out of URLs and logs' },
    body: tokenBody,
    response: invitationPreviewSchema,
    handle: ({ deps, auth, body }) => previewInvitation(deps, auth.instance.id, body.token),
  }),
};

export const mySuggestions = {
  list: endpoint<SignedInAuth, never, z.output<typeof suggestionsQuery>>({
    summary:
      'Organizations suggested to the user by their verified email domain; status pending (default) or accepted (asked to join), comma-separated for both',
    query: suggestionsQuery,
    response: lightListSchema(suggestionSchema),
    handle: async ({ deps, auth, query }) => {
      const { me } = auth;
      return listUserSuggestions(deps, auth.instance.id, me.userId, query.status);
    },
  }),
  accept: endpoint<SignedInAuth, never, MeQuery, 'id'>({
    summary:
      'Ask to join a suggested organization: a membership request its admins accept (the user then joins with the default role) or reject',
    audit: { action: 'organization_suggestion.accepted' },
    query: meQuery,
    response: suggestionSchema,
    handle: async ({ deps, auth, params }) => acceptSuggestion(deps, auth.instance.id, auth.me.userId, params.id),
  }),
};

export const organizationLogo = {
  /** FAPI, public: an organization's logo at its version (immutable caching, ETag, 304), as the organization's `image_url` says. */
  get: endpoint<FapiAuth, never, never, 'id' | 'version'>({
    summary: 'An organization’s logo (the URL names its version: cached for a year); 304 on a matching If-None-Match',
    response: z.unknown(),
    handle: async ({ deps, auth, params, raw }) =>
      storedImageResult(await organizationLogoImage(deps, auth.instance.id, params.id, params.version, raw.header('if-none-match'))),
  }),
};

export const organizationPortalLinks = {
  /** FAPI: a member holding org:sys_portal:manage asks for an admin portal link of their organization ("Set up SSO" in the app). */
  create: portalLinkEndpointFor<OrgMemberAuth>(
    (auth) => auth.instance.id,
    (auth) => auth.org.organization.id,
  ),
};
