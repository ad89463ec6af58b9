import { z } from 'zod';
import type { FapiAuth } from './authenticate';
import { AppError } from '../../http/errors';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { clientSessionToken, clientView, revokeClient, signedOutClient } from '../../sessions/clients';
import { refreshBody, sessionSchema, tokenResponseSchema } from '../../sessions/schemas';
import { refreshSession } from '../../sessions/sessions';
import { allowedOrigins } from './origin';

/** FAPI endpoints of clients and sessions; mounted by server/api/fapi (sign-ins, tickets included, are in server/auth). */

/** A session as the client lists it: with the tasks a pending one awaits (`setup_mfa`). */
export const clientSessionSchema = sessionSchema
  .extend({ tasks: z.array(z.object({ key: z.enum(['setup_mfa']) })) })
  .meta({ id: 'ClientSession' });

export const clientSchema = z
  .object({
    object: z.literal('client'),
    id: z.string().nullable(),
    sessions: z.array(clientSessionSchema),
    last_active_session_id: z.string().nullable(),
    session: clientSessionSchema.nullable(),
    created_at: z.number().int().nullable(),
    updated_at: z.number().int().nullable(),
  })
  .meta({ id: 'Client' });

/** Clients may send their own query parameters (SDK versions…): unknown ones are ignored. */
const clientQuery = z.object({
  publishable_key: z.string().max(512).optional(),
  _is_native: z.string().max(8).optional(),
});

export const getClientEndpoint = endpoint<FapiAuth, never, z.output<typeof clientQuery>>({
  summary: 'Boot the client: its live sessions and the active one; session null when signed out. Never 401.',
  query: clientQuery,
  response: clientSchema,
  handle: ({ deps, auth }) => clientView(deps, auth.instance, auth.client),
});

export const deleteClientEndpoint = endpoint<FapiAuth>({
  summary: 'Sign out on this device: ends every session of the client, revokes it and clears its cookie',
  audit: { action: 'client.signed_out' },
  response: clientSchema,
  handle: async ({ deps, auth, actor }) => {
    if (auth.client) {
      await revokeClient(deps, auth.instance.id, auth.client.id, auditContextOf(actor));
    }
    auth.clearClientToken();
    return signedOutClient();
  },
});

export const createSessionTokenEndpoint = endpoint<FapiAuth>({
  summary: 'A fresh session JWT for a live session of this client',
  audit: { unaudited: 'hot path: a short-lived token for a live session; changes nothing' },
  response: z.object({ object: z.literal('token'), jwt: z.string() }),
  handle: async ({ deps, auth, params, request }) => {
    if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'This device is signed out: no valid client.' });
    // azp: the allowed browser origin asking for the token (Clerk's authorizedParties check reads it).
    const azp = request.origin && allowedOrigins(auth.instance, auth.instance.fapiUrl).has(request.origin) ? request.origin : null;
    return clientSessionToken(deps, auth.instance, auth.client.id, params.id!, azp);
  },
});

export const refreshSessionEndpoint = endpoint<FapiAuth, z.output<typeof refreshBody>>({
  summary: 'Exchange a refresh token (the credential) for a session JWT and the next refresh token',
  audit: { unaudited: 'hot path: token rotation is recorded on the session (reuse revokes it, audited as session.revoked)' },
  body: refreshBody,
  response: tokenResponseSchema,
  handle: ({ deps, auth, params, body }) => refreshSession(deps, auth.instance, params.id!, body.refresh_token),
});

