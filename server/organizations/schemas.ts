import { z } from 'zod';
import { cursorPageSchema, lightListSchema, pageQuery } from '../http/pagination';
import { metadataInput as metadata } from '../http/metadata';
import { emailAddress } from '../email/addresses';
import { ENROLLMENT_MODES } from '../db/schema';
import { PERMISSION_KEY_RE, ROLE_KEY_RE } from './roles';

const oneOrMany = <T extends z.ZodType>(item: T) => z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(item).max(20));

export const slug = z
  .string()
  .trim()
  .toLowerCase()
  .min(2)
  .max(64)
  .regex(/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/, 'may contain only lower-case letters, digits and inner "-"');

const orgName = z.string().trim().min(1).max(256);
const imageUrl = z
  .string()
  .max(2048)
  .refine((v) => /^https?:\/\//.test(v), { message: 'must be an http(s) URL', params: { reason: 'invalid_url' } })
  .meta({ pattern: '^https?://' });

const roleKey = z.string().max(64).regex(ROLE_KEY_RE, 'must look like org:<name>');
const userId = z.string().min(1).max(64);
const maxMemberships = z.number().int().min(0).max(100_000);

/** Light lists: `limit` (default 100, at most 500) and `starting_after`, the last id seen. */
export const lightQuery = {
  limit: z.coerce
    .number()
    .int()
    .min(1)
    .meta({ maximum: 500, default: 100, description: 'Page size; larger values are read as 500.' })
    .optional()
    .transform((v) => Math.min(v ?? 100, 500)),
  starting_after: z.string().min(1).max(64).optional(),
};

export const createOrganizationBody = z.strictObject({
  name: orgName,
  slug: slug.optional(),
  created_by: userId.optional(),
  image_url: imageUrl.nullable().optional(),
  public_metadata: metadata.optional(),
  private_metadata: metadata.optional(),
  max_allowed_memberships: maxMemberships.optional(),
});

export const updateOrganizationBody = z.strictObject({
  name: orgName.optional(),
  slug: slug.optional(),
  image_url: imageUrl.nullable().optional(),
  public_metadata: metadata.optional(),
  private_metadata: metadata.optional(),
  max_allowed_memberships: maxMemberships.optional(),
});

export const listOrganizationsQuery = z.strictObject({
  ...pageQuery,
  query: z.string().trim().min(1).max(256).optional(),
  user_id: userId.optional(),
  include_members_count: z
    .enum(['true', 'false'])
    .optional()
    .describe('Accepted for Clerk’s SDKs (`includeMembersCount`); every organization always carries `members_count`'),
});

export const organizationSchema = z
  .object({
    object: z.literal('organization'),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    image_url: z.string().nullable(),
    has_image: z.boolean(),
    public_metadata: z.record(z.string(), z.unknown()),
    private_metadata: z.record(z.string(), z.unknown()),
    max_allowed_memberships: z.number().int(),
    members_count: z.number().int(),
    created_by: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Organization' });

export const publicOrganizationSchema = organizationSchema.omit({ private_metadata: true }).meta({ id: 'PublicOrganization' });

export const deletedSchema = (object: string) =>
  z.object({ object: z.literal(object), id: z.string(), deleted: z.literal(true) }).passthrough();

export const createMembershipBody = z.strictObject({
  user_id: userId,
  role: roleKey.optional(),
  public_metadata: metadata.optional(),
  private_metadata: metadata.optional(),
});

export const updateMembershipBody = z.strictObject({
  role: roleKey.optional(),
  public_metadata: metadata.optional(),
  private_metadata: metadata.optional(),
});

export const listMembershipsQuery = z.strictObject({
  ...lightQuery,
  role: oneOrMany(roleKey).optional(),
  /** Members whose name, username, email address or phone number starts with it (as GET /v1/users?query=). */
  query: z.string().trim().min(1).max(256).optional(),
});
export const userMembershipsQuery = z.strictObject({ ...pageQuery });

/** The public part of a member (or requester) that every member may see. */
const publicUserDataSchema = z.object({
  user_id: z.string(),
  first_name: z.string().nullable(),
  last_name: z.string().nullable(),
  username: z.string().nullable(),
  identifier: z.string(),
  image_url: z.string().nullable(),
  has_image: z.boolean(),
});

export const listMembershipRequestsQuery = z.strictObject({
  ...lightQuery,
  /** `revoked` is Clerk's name for `rejected`. */
  status: z
    .enum(['pending', 'accepted', 'rejected', 'revoked'])
    .transform((v) => (v === 'revoked' ? 'rejected' : v))
    .optional(),
});

export const membershipRequestSchema = z
  .object({
    object: z.literal('organization_membership_request'),
    id: z.string(),
    organization_id: z.string(),
    status: z.enum(['pending', 'accepted', 'rejected']),
    public_user_data: publicUserDataSchema,
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OrganizationMembershipRequest' });

export const membershipSchema = z
  .object({
    object: z.literal('organization_membership'),
    id: z.string(),
    organization: organizationSchema,
    public_user_data: publicUserDataSchema,
    role: z.string(),
    role_name: z.string().nullable(),
    permissions: z.array(z.string()),
    public_metadata: z.record(z.string(), z.unknown()),
    private_metadata: z.record(z.string(), z.unknown()),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OrganizationMembership' });

export const publicMembershipSchema = membershipSchema
  .omit({ private_metadata: true, organization: true })
  .extend({ organization: publicOrganizationSchema })
  .meta({ id: 'PublicOrganizationMembership' });

export const membershipCursorList = cursorPageSchema(membershipSchema);

const invitationFields = {
  email_address: emailAddress,
  role: roleKey.optional(),
  redirect_url: z
    .string()
    .max(2048)
    .meta({ description: 'Must be one of the instance’s allowed redirect URLs (422 not_allowed otherwise).' })
    .optional(),
  inviter_user_id: userId.optional(),
  public_metadata: metadata.optional(),
  private_metadata: metadata.optional(),
  expires_in_days: z.number().int().min(1).max(365).optional(),
  notify: z.boolean().optional(),
};

export const createInvitationBody = z.strictObject(invitationFields);
export const bulkInvitationBody = z
  .array(z.strictObject(invitationFields))
  .min(1)
  .max(50)
  .meta({ description: 'Each email_address at most once (case-insensitive; 422 duplicate otherwise).' });

const INVITATION_STATUS = ['pending', 'accepted', 'revoked', 'expired'] as const;
export const listInvitationsQuery = z.strictObject({ ...lightQuery, status: oneOrMany(z.enum(INVITATION_STATUS)).optional() });

export const invitationSchema = z
  .object({
    object: z.literal('organization_invitation'),
    id: z.string(),
    email_address: z.string(),
    role: z.string(),
    organization_id: z.string(),
    public_organization_data: z.object({
      id: z.string(),
      name: z.string(),
      slug: z.string(),
      image_url: z.string().nullable(),
      has_image: z.boolean(),
    }),
    status: z.enum(INVITATION_STATUS),
    redirect_url: z.string().nullable(),
    public_metadata: z.record(z.string(), z.unknown()),
    private_metadata: z.record(z.string(), z.unknown()),
    inviter_user_id: z.string().nullable(),
    expires_at: z.number().int(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OrganizationInvitation' });

export const publicInvitationSchema = invitationSchema.omit({ private_metadata: true }).meta({ id: 'PublicOrganizationInvitation' });

const domainName = z
  .string()
  .trim()
  .toLowerCase()
  .max(253)
  .regex(/^(?=.{1,253}$)(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/, 'must be a domain name such as example.com');

export const createDomainBody = z.strictObject({
  name: domainName.meta({ description: 'Not a public email provider’s domain such as gmail.com (422 public_email_domain).' }),
  enrollment_mode: z.enum(ENROLLMENT_MODES).optional(),
  /** BAPI only: the domain is trusted as verified by the operator. */
  verified: z.boolean().optional(),
});

export const updateDomainBody = z.strictObject({
  enrollment_mode: z.enum(ENROLLMENT_MODES).optional(),
  verified: z.boolean().optional(),
});

export const prepareDomainVerificationBody = z.discriminatedUnion('strategy', [
  z.strictObject({ strategy: z.literal('email_code'), affiliation_email_address: emailAddress }),
  z.strictObject({ strategy: z.literal('dns_record') }),
]);

export const attemptDomainVerificationBody = z.discriminatedUnion('strategy', [
  z.strictObject({ strategy: z.literal('email_code'), code: z.string().trim().min(1).max(16) }),
  z.strictObject({ strategy: z.literal('dns_record') }),
]);

export const domainSchema = z
  .object({
    object: z.literal('organization_domain'),
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    enrollment_mode: z.enum(ENROLLMENT_MODES),
    verification: z.object({
      status: z.enum(['unverified', 'verified']),
      strategy: z.string().nullable(),
      verified_at: z.number().int().nullable(),
      last_checked_at: z.number().int().nullable(),
      error: z.string().nullable(),
    }),
    affiliation_email_address: z.string().nullable(),
    txt_record: z.object({ type: z.literal('TXT'), name: z.string(), value: z.string() }),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'OrganizationDomain' });

export const domainLightList = lightListSchema(domainSchema);

const permissionKey = z.string().max(140).regex(PERMISSION_KEY_RE, 'must look like org:<feature>:<action>');
const label = z.string().trim().min(1).max(256);
const description = z.string().trim().max(1024);
/** `org:sys_…` keys belong to the system permissions (422 reserved). */
const newPermissionKey = permissionKey.meta({ pattern: `^(?!org:sys_)${PERMISSION_KEY_RE.source.replace(/^\^/, '')}` });
export const createPermissionBody = z.strictObject({ key: newPermissionKey, name: label, description: description.optional() });
export const updatePermissionBody = z.strictObject({ name: label.optional(), description: description.optional() });
export const createRoleBody = z.strictObject({
  key: roleKey,
  name: label,
  description: description.optional(),
  permissions: z.array(permissionKey).max(200).optional(),
});

export const updateRoleBody = z.strictObject({
  name: label.optional(),
  description: description.optional(),
  permissions: z.array(permissionKey).max(200).optional(),
});

export const listRolesQuery = z.strictObject({ ...lightQuery });

export const permissionSchema = z
  .object({
    object: z.literal('permission'),
    id: z.string(),
    key: z.string(),
    name: z.string(),
    description: z.string(),
    type: z.enum(['system', 'user']),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Permission' });

export const roleSchema = z
  .object({
    object: z.literal('role'),
    id: z.string(),
    key: z.string(),
    name: z.string(),
    description: z.string(),
    permissions: z.array(z.string()),
    is_system: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Role' });
