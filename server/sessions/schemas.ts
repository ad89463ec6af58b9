import { z } from 'zod';
import { SESSION_STATUSES } from '../db/schema';
import { cursorPageSchema, lightListSchema, pageQuery } from '../http/pagination';

export const actorSchema = z.looseObject({ sub: z.string().min(1).max(256) });

const latestActivitySchema = z
  .object({
    ip_address: z.string().nullable(),
    browser_name: z.string().nullable(),
    browser_version: z.string().nullable(),
    device_type: z.enum(['desktop', 'mobile', 'tablet', 'unknown']).nullable(),
    os_name: z.string().nullable(),
    is_mobile: z.boolean().nullable(),
  })
  .meta({ id: 'SessionActivity' });

const ltiSessionContextSchema = z
  .object({
    platform_id: z.string(),
    issuer: z.string(),
    deployment_id: z.string(),
    context: z.object({ id: z.string(), title: z.string().nullable(), label: z.string().nullable() }).nullable(),
    resource_link: z.object({ id: z.string(), title: z.string().nullable() }),
    roles: z.array(z.string()),
  })
  .meta({ id: 'LtiSessionContext' });

export const sessionSchema = z
  .object({
    object: z.literal('session'),
    id: z.string(),
    user_id: z.string(),
    status: z.enum(SESSION_STATUSES),
    last_active_organization_id: z.string().nullable(),
    impersonated_by: z.string().nullable(),
    last_active_at: z.number().int(),
    expire_at: z.number().int(),
    abandon_at: z.number().int(),
    created_at: z.number().int(),
    /** The client's activity at creation or latest touch; null for headless sessions. */
    latest_activity: latestActivitySchema.nullable(),
    /** The LTI launch the session started from (platform, course context, resource link, roles); null otherwise. */
    lti: ltiSessionContextSchema.nullable(),
  })
  .meta({ id: 'Session' });

export const sessionTokensSchema = z.object({ jwt: z.string(), refresh_token: z.string(), expires_in: z.number().int() });
export const mintedSessionSchema = sessionSchema.extend(sessionTokensSchema.shape);

export const mintSessionBody = z.strictObject({ user_id: z.string().min(1).max(64), actor: actorSchema.optional() });
export const refreshBody = z.strictObject({ refresh_token: z.string().min(1).max(256) });
export const verifyBody = z.strictObject({ token: z.string().min(1).max(8192) });

export const listSessionsQuery = z.strictObject({
  ...pageQuery,
  user_id: z.string().max(64).optional(),
  status: z.enum(SESSION_STATUSES).optional(),
});
export const userSessionsQuery = listSessionsQuery.omit({ user_id: true });

export const sessionListSchema = cursorPageSchema(sessionSchema);
export const revokedAllSchema = lightListSchema(sessionSchema).extend({ sessions_version: z.number().int() });
