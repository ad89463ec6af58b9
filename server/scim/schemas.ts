import { z } from 'zod';
import { cursorPageSchema, pageQuery } from '../http/pagination';

const organizationId = z.string().min(1).max(64);
const roleKey = z
  .string()
  .max(64)
  .regex(/^org:[a-z0-9_]{1,64}$/, 'must look like org:<name>');

export const createScimTokenBody = z.strictObject({ organization_id: organizationId, name: z.string().trim().min(1).max(256) });
export const listScimTokensQuery = z.strictObject({ ...pageQuery, organization_id: organizationId.optional() });
/** The console's lists: the organization is in the path. */
export const orgPageQuery = z.strictObject({ ...pageQuery });
export const directoryListQuery = z.strictObject({ ...pageQuery, organization_id: organizationId.optional() });
export const setGroupRoleBody = z.strictObject({ role: roleKey.nullable() });

export const scimTokenSchema = z
  .object({
    object: z.literal('scim_token'),
    id: z.string(),
    organization_id: z.string(),
    name: z.string(),
    created_at: z.number().int(),
    last_used_at: z.number().int().nullable(),
    revoked_at: z.number().int().nullable(),
  })
  .meta({ id: 'ScimToken' });
export const createdScimTokenSchema = scimTokenSchema
  .extend({ token: z.string().meta({ description: 'The scim_… bearer token, shown only in this answer.' }) })
  .meta({ id: 'CreatedScimToken' });
export const scimTokenList = cursorPageSchema(scimTokenSchema);

export const directoryGroupSchema = z
  .object({
    object: z.literal('scim_group'),
    id: z.string(),
    organization_id: z.string(),
    display_name: z.string(),
    external_id: z.string().nullable(),
    role: z.string().nullable(),
    members_count: z.number().int(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'ScimGroup' });
export const directoryGroupList = cursorPageSchema(directoryGroupSchema);

const directoryUserSchema = z
  .object({
    object: z.literal('scim_user'),
    id: z.string(),
    user_id: z.string(),
    organization_id: z.string(),
    user_name: z.string(),
    external_id: z.string().nullable(),
    display_name: z.string().nullable(),
    active: z.boolean(),
    created_by_directory: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'ScimUser' });
export const directoryUserList = cursorPageSchema(directoryUserSchema);
