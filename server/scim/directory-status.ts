import { count, eq, max, sql } from 'drizzle-orm';
import { z } from 'zod';
import type { Deps } from '../deps';
import { scimDirectoryErrors, scimGroups, scimTokens, scimUsers } from '../db/schema';
import { loadOrganization } from '../organizations/organization-view';
import { listScimTokens, type ScimCaller } from './tokens';
import { scimTokenSchema } from './schemas';

/**
 * A directory's live status, as the portal and the console show it: its SCIM base URL, tokens,
 * last request, users and groups synced, and its failed requests (a count and the last one).
 */
const DETAIL_MAX = 500;
const PATH_MAX = 300;

export const directoryStatusSchema = z
  .object({
    object: z.literal('directory'),
    /** The SCIM base URL the IdP is given. */
    scim_base_url: z.string(),
    tokens: z.array(scimTokenSchema),
    /** The directory's last request (to the minute), null before the first. */
    last_request_at: z.number().int().nullable(),
    users_count: z.number().int(),
    groups_count: z.number().int(),
    /** Requests with a valid token answered 400 or more, since the directory's first. */
    errors_count: z.number().int(),
    /** The last of them: method, path (no query), status, SCIM error type and detail; never a body. */
    last_error: z
      .object({
        at: z.number().int(),
        method: z.string(),
        path: z.string(),
        status: z.number().int(),
        scim_type: z.string().nullable(),
        detail: z.string(),
      })
      .nullable(),
  })
  .meta({ id: 'DirectoryStatus' });

export async function directoryStatus(deps: Pick<Deps, 'db' | 'config'>, instanceId: string, orgIdOrSlug: string) {
  const org = await loadOrganization(deps.db, instanceId, orgIdOrSlug);
  const tokens = await listScimTokens(deps, instanceId, { organization_id: org.id, limit: 100 });
  const [last] = await deps.db
    .select({ at: max(scimTokens.lastUsedAt) })
    .from(scimTokens)
    .where(eq(scimTokens.organizationId, org.id));
  const [users] = await deps.db.select({ n: count() }).from(scimUsers).where(eq(scimUsers.organizationId, org.id));
  const [groups] = await deps.db.select({ n: count() }).from(scimGroups).where(eq(scimGroups.organizationId, org.id));
  const [errors] = await deps.db.select().from(scimDirectoryErrors).where(eq(scimDirectoryErrors.organizationId, org.id));
  return {
    object: 'directory' as const,
    scim_base_url: `${deps.config.PUBLIC_URL.replace(/\/$/, '')}/scim/v2`,
    tokens: tokens.data,
    last_request_at: last?.at ?? null,
    users_count: Number(users?.n ?? 0),
    groups_count: Number(groups?.n ?? 0),
    errors_count: errors?.errorsCount ?? 0,
    last_error: errors
      ? {
          at: errors.lastErrorAt,
          method: errors.lastMethod,
          path: errors.lastPath,
          status: errors.lastStatus,
          scim_type: errors.lastScimType,
          detail: errors.lastDetail,
        }
      : null,
  };
}

/**
 * Counts a failed request of a directory (its token was valid) and keeps it as the last one:
 * one row per directory, so the store stays bounded. The detail is the SCIM error's own
 * (our message); the request body is never read.
 */
export async function recordDirectoryFailure(
  deps: Pick<Deps, 'db' | 'clock'>,
  caller: ScimCaller,
  failure: { method: string; path: string; status: number; scimType: string | null; detail: string },
) {
  const last = {
    lastErrorAt: deps.clock.now(),
    lastMethod: failure.method.slice(0, 16),
    lastPath: failure.path.slice(0, PATH_MAX),
    lastStatus: failure.status,
    lastScimType: failure.scimType?.slice(0, 64) ?? null,
    lastDetail: failure.detail.slice(0, DETAIL_MAX),
  };
  await deps.db
    .insert(scimDirectoryErrors)
    .values({ organizationId: caller.organizationId, instanceId: caller.instanceId, errorsCount: 1, ...last })
    .onConflictDoUpdate({
      target: scimDirectoryErrors.organizationId,
      set: { errorsCount: sql`${scimDirectoryErrors.errorsCount} + 1`, ...last },
    });
}
