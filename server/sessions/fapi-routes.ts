import { z } from 'zod';
import type { FapiAuth } from '../api/fapi/auth';
import { AppError } from '../http/errors';
import { endpoint } from '../http/endpoint';
import { newId } from '../http/ids';
import { jwksSchema } from '../signing/routes';
import { publishedKeys } from '../signing/signing-keys';
import { clientSessionToken, clientView, revokeClient, signedOutClient } from './clients';
import { refreshBody, sessionSchema, tokenResponseSchema } from './schemas';
import { refreshSession } from './sessions';
import { signInWithTicket } from './tickets';

/** FAPI endpoints of clients, sessions and tickets; mounted by server/api/fapi. */

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

/**
 * Sign-in strategies, one member each. Only `ticket` exists so far; password and
 * email_code join this union.
 */
export const signInBody = z.discriminatedUnion(
  'strategy',
  [z.strictObject({ strategy: z.literal('ticket'), ticket: z.string().min(1).max(512) })],
  {
    error: (iss) =>
      iss.code !== 'invalid_union'
        ? undefined
        : (iss.input as { strategy?: unknown } | undefined)?.strategy === undefined
          ? 'required; supported strategies: ticket.'
          : 'unsupported; supported strategies: ticket.',
  },
);

export const signInAttemptSchema = z.object({
  object: z.literal('sign_in_attempt'),
  id: z.string(),
  status: z.literal('complete'),
  created_session_id: z.string(),
});

export const getClientEndpoint = endpoint<FapiAuth, never, z.output<typeof clientQuery>>({
  summary: 'Boot the client: its live sessions and the active one; session null when signed out. Never 401.',
  query: clientQuery,
  response: clientSchema,
  handle: ({ deps, auth }) => clientView(deps, auth.instance, auth.client),
});

export const deleteClientEndpoint = endpoint<FapiAuth>({
  summary: 'Sign out on this device: ends every session of the client, revokes it and clears its cookie',
  response: clientSchema,
  handle: async ({ deps, auth, request }) => {
    if (auth.client) {
      await revokeClient(deps, auth.instance.id, auth.client.id, { actor: `client:${auth.client.id}`, ip: request.ip, userAgent: request.userAgent });
    }
    auth.clearClientToken();
    return signedOutClient();
  },
});

export const createSignInEndpoint = endpoint<FapiAuth, z.output<typeof signInBody>>({
  summary: 'Sign in. Strategy ticket: redeem an actor token or sign-in token (creates the client if none)',
  body: signInBody,
  response: z.object({ response: signInAttemptSchema, client: clientSchema }),
  handle: async ({ deps, auth, body, request }) => {
    const result = await signInWithTicket(deps, auth.instance, { ticket: body.ticket, client: auth.client }, request);
    // A sign-in (re)issues the client token: a new cookie lifetime on the web, the header in native mode.
    auth.issueClientToken(result.newClientToken ?? auth.clientToken!);
    return {
      response: { object: 'sign_in_attempt' as const, id: newId('sia'), status: 'complete' as const, created_session_id: result.sessionId },
      client: await clientView(deps, auth.instance, result.client),
    };
  },
});

export const createSessionTokenEndpoint = endpoint<FapiAuth>({
  summary: 'A fresh session JWT for a live session of this client',
  response: z.object({ object: z.literal('token'), jwt: z.string() }),
  handle: async ({ deps, auth, params }) => {
    if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'This device is signed out: no valid client.' });
    return clientSessionToken(deps, auth.instance, auth.client.id, params.id!);
  },
});

export const refreshSessionEndpoint = endpoint<FapiAuth, z.output<typeof refreshBody>>({
  summary: 'Exchange a refresh token (the credential) for a session JWT and the next refresh token',
  body: refreshBody,
  response: tokenResponseSchema,
  handle: ({ deps, auth, params, body }) => refreshSession(deps, auth.instance, params.id!, body.refresh_token),
});

export const jwksEndpoint = endpoint<FapiAuth>({
  summary: 'The instance’s public signing keys (JWKS)',
  response: jwksSchema,
  handle: async ({ deps, auth }) => ({ keys: await publishedKeys(deps, auth.instance.id) }),
});
