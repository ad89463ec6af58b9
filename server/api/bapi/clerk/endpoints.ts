import { z } from 'zod';
import { endpoint, type Endpoint } from '../../../http/endpoint';
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

/**
 * The paths `@clerk/backend` calls that Latchkey's own contract names differently, mounted
 * beside Latchkey's routes (server/api/bapi). Each reuses a domain function; only the path
 * and the answer's shape are Clerk's.
 */

const userFilters = listUsersQuery.pick({ email_address: true, external_id: true, username: true, query: true });

type MintTokenBody = z.output<typeof mintTokenBody> | undefined;

/** POST /v1/sessions/:id/verify `{token}`: POST /v1/sessions/verify, also checking the token is this session's. */
type Verify = Parameters<typeof bapiSessions.verify.handle>[0];
const verifySessionById: Endpoint<BapiAuth, Verify['body'], Verify['query'], 'id'> = {
  ...bapiSessions.verify,
  summary: 'Verify a session JWT of this session, including revocation',
  handle: async (ctx) => {
    const session = (await bapiSessions.verify.handle(ctx)) as { id: string };
    if (session.id !== ctx.params.id) throw new AppError('NOT_FOUND', { message: 'The token is not one of this session.' });
    return session;
  },
};

export const clerkUsers = {
  /** GET /v1/users/count: `{object: 'total_count', total_count}` for the list's filters. */
  count: endpoint<BapiAuth, never, z.output<typeof userFilters>>({
    summary: 'Count users matching the list filters',
    query: userFilters,
    response: z.object({ object: z.literal('total_count'), total_count: z.number().int() }),
    handle: async ({ deps, auth, query }) => ({
      object: 'total_count' as const,
      total_count: await countUsers(deps, auth.instance.id, query),
    }),
  }),
  /** PATCH /v1/users/:id/metadata: the metadata fields of PATCH /v1/users/:id (deep-merged; null deletes a key). */
  updateMetadata: {
    ...bapiUsers.update,
    summary: 'Update a user’s metadata (deep-merged; null deletes a key)',
    body: z.strictObject({
      public_metadata: metadataInput.optional(),
      private_metadata: metadataInput.optional(),
      unsafe_metadata: metadataInput.optional(),
    }),
  },
};

export const clerkOrganizations = {
  /** PATCH /v1/organizations/:id/metadata: the metadata fields of PATCH /v1/organizations/:id. */
  updateMetadata: {
    ...bapiOrganizations.updateOrganization,
    summary: 'Update an organization’s metadata (deep-merged; null deletes a key)',
    body: updateOrganizationBody.pick({ public_metadata: true, private_metadata: true }),
  },
};

export const clerkSessions = {
  /** POST /v1/sessions/:id/tokens `{expires_in_seconds?}`: a fresh session JWT of a live session. */
  createToken: endpoint<BapiAuth, MintTokenBody, never, 'id'>({
    summary: 'Get a fresh session JWT for a live session',
    body: mintTokenBody,
    response: templateTokenSchema,
    audit: { unaudited: 'mints a short-lived token of an existing session, like a refresh' },
    handle: async ({ deps, auth, params, body }) => {
      const { jwt } = await sessionToken(
        deps,
        await instanceContext(deps, auth.instance.id),
        params.id,
        body?.expires_in_seconds ?? undefined,
      );
      return { object: 'token' as const, jwt };
    },
  }),
  /** POST /v1/sessions/:id/tokens/:template `{expires_in_seconds?}`: a JWT from the named template (server/sessions/jwt-templates.ts) for a live session. */
  createTemplateToken: endpoint<BapiAuth, MintTokenBody, never, 'id' | 'template'>({
    summary: 'Get a JWT from a named JWT template for a live session (unknown template: 404)',
    body: mintTokenBody,
    response: templateTokenSchema,
    audit: { unaudited: 'mints a short-lived token of an existing session, like the session token' },
    handle: async ({ deps, auth, params, body }) =>
      sessionTemplateToken(
        deps,
        await instanceContext(deps, auth.instance.id),
        params.id,
        params.template,
        body?.expires_in_seconds ?? undefined,
      ),
  }),
  verify: verifySessionById,
};
