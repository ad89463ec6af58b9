import { z } from 'zod';
import { endpoint } from '../../../http/endpoint';
import { AppError } from '../../../http/errors';
import { instanceContext } from '../../../instances/instances';
import type { BapiAuth } from '../authenticate';
import { bapiOrganizations } from '../organizations';
import { updateOrganizationBody } from '../../../organizations/schemas';
import { bapiSessions } from '../sessions';
import { sessionToken } from '../../../sessions/sessions';
import { mintTokenBody, sessionTemplateToken, templateTokenSchema } from '../../../sessions/jwt-templates';
import { bapiUsers } from '../users';
import { listUsersQuery } from '../../../users/schemas';
import { countUsers } from '../../../users/users';
import { metadataInput } from '../../../http/metadata';
import { isAppError } from '../../../http/errors';
import { verifySessionJwt } from '../../../sessions/tokens';
import { clerkRefreshParams } from './compat';

/**
 * The paths `@clerk/backend` calls that Latchkey's own contract names differently, mounted
 * beside Latchkey's routes (server/api/bapi). Each reuses a domain function; only the path
 * and the answer's shape are Clerk's.
 */

const userFilters = listUsersQuery.pick({ email_address: true, external_id: true, username: true, query: true });

/** GET /v1/users/count: `{object: 'total_count', total_count}` for the list's filters. */
export const countUsersEndpoint = endpoint<BapiAuth, never, z.output<typeof userFilters>>({
  summary: 'Count users matching the list filters',
  query: userFilters,
  response: z.object({ object: z.literal('total_count'), total_count: z.number().int() }),
  handle: async ({ deps, auth, query }) => ({ object: 'total_count' as const, total_count: await countUsers(deps, auth.instance.id, query) }),
});

/** PATCH /v1/users/:id/metadata: the metadata fields of PATCH /v1/users/:id (deep-merged; null deletes a key). */
export const updateUserMetadataEndpoint = {
  ...bapiUsers.update,
  summary: 'Update a user’s metadata (deep-merged; null deletes a key)',
  body: z.strictObject({
    public_metadata: metadataInput.optional(),
    private_metadata: metadataInput.optional(),
    unsafe_metadata: metadataInput.optional(),
  }),
};

/** PATCH /v1/organizations/:id/metadata: the metadata fields of PATCH /v1/organizations/:id. */
export const updateOrganizationMetadataEndpoint = {
  ...bapiOrganizations.updateOrganization,
  summary: 'Update an organization’s metadata (deep-merged; null deletes a key)',
  body: updateOrganizationBody.pick({ public_metadata: true, private_metadata: true }),
};

type MintTokenBody = z.output<typeof mintTokenBody> | undefined;

/** POST /v1/sessions/:id/tokens `{expires_in_seconds?}`: a fresh session JWT of a live session. */
export const sessionTokenEndpoint = endpoint<BapiAuth, MintTokenBody>({
  summary: 'Get a fresh session JWT for a live session',
  body: mintTokenBody,
  response: templateTokenSchema,
  audit: { unaudited: 'mints a short-lived token of an existing session, like a refresh' },
  handle: async ({ deps, auth, params, body }) => {
    const { jwt } = await sessionToken(deps, await instanceContext(deps, auth.instance.id), params.id!, body?.expires_in_seconds ?? undefined);
    return { object: 'token' as const, jwt };
  },
});

/** POST /v1/sessions/:id/tokens/:template `{expires_in_seconds?}`: a JWT from the named template (server/sessions/jwt-templates.ts) for a live session. */
export const sessionTemplateTokenEndpoint = endpoint<BapiAuth, MintTokenBody>({
  summary: 'Get a JWT from a named JWT template for a live session (unknown template: 404)',
  body: mintTokenBody,
  response: templateTokenSchema,
  audit: { unaudited: 'mints a short-lived token of an existing session, like the session token' },
  handle: async ({ deps, auth, params, body }) =>
    sessionTemplateToken(deps, await instanceContext(deps, auth.instance.id), params.id!, params.template!, body?.expires_in_seconds ?? undefined),
});

/** POST /v1/sessions/:id/verify `{token}`: POST /v1/sessions/verify, also checking the token is this session's. */
export const verifySessionByIdEndpoint: typeof bapiSessions.verify = {
  ...bapiSessions.verify,
  summary: 'Verify a session JWT of this session, including revocation',
  handle: async (ctx) => {
    const session = (await bapiSessions.verify.handle(ctx)) as { id: string };
    if (session.id !== ctx.params.id) throw new AppError('NOT_FOUND', { message: 'The token is not one of this session.' });
    return session;
  },
};

/**
 * POST /v1/sessions/:id/refresh under the Clerk dialect (`sessions.refreshSession`): Latchkey's
 * refresh (the refresh token rotates: the answer carries the next one beside `jwt`), and when
 * the SDK sends the session token it holds (`expired_token`), that token must be one this
 * instance signed for this session — expired is fine, forged or another session's is not.
 */
export const clerkRefreshSessionEndpoint: typeof bapiSessions.refresh = {
  ...bapiSessions.refresh,
  handle: async (ctx) => {
    const expired = clerkRefreshParams().expired_token;
    if (expired !== undefined) {
      if (typeof expired !== 'string' || expired.length > 8192) throw new AppError('TOKEN_INVALID');
      const instance = await instanceContext(ctx.deps, ctx.auth.instance.id);
      await verifySessionJwt(ctx.deps, instance, expired).catch((e: unknown) => {
        if (!(isAppError(e) && e.code === 'TOKEN_EXPIRED')) throw e;
      });
      // Authentic (signature and issuer checked above): its session must be this one.
      const sid = (JSON.parse(Buffer.from(expired.split('.')[1]!, 'base64url').toString('utf8')) as { sid?: unknown }).sid;
      if (sid !== ctx.params.id) throw new AppError('TOKEN_INVALID', { message: 'expired_token is not a token of this session.' });
    }
    return bapiSessions.refresh.handle(ctx);
  },
};
