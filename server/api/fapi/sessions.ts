import { z } from 'zod';
import type { FapiAuth } from './authenticate';
import { AppError } from '../../http/errors';
import { auditContextOf } from '../../http/actor';
import { endpoint } from '../../http/endpoint';
import { clientSessionToken, clientView, revokeClient, signedOutClient } from '../../sessions/clients';
import { refreshBody, sessionSchema, sessionTokensSchema } from '../../sessions/schemas';
import { refreshSession } from '../../sessions/sessions';
import { allowedOrigins } from './origin';
import type { SignedInAuth } from './authenticate';
import { meSessionList, listMySessions, revokeMySession, revokeMyOtherSessions } from '../../sessions/my-sessions';
import { meQuery, type MeQuery } from './users';
import { type ClientRow } from '../../sessions/clients';
import { auditOf, freshClient, endClientSession, endAllClientSessions, touchClientSession } from '../../sessions/sign-out';

/** FAPI endpoints of clients and sessions; mounted by server/api/fapi (sign-ins, tickets included, are in server/auth). */

/** A session as the client lists it: with the tasks a pending one awaits (`setup_mfa`). */
const clientSessionSchema = sessionSchema
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

const requireClient = (auth: FapiAuth): ClientRow => {
  if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'This device is signed out: no valid client.' });
  return auth.client;
};

const sessionResponse = z.object({ response: sessionSchema, client: clientSchema });

/** A form post sends "" for none. */
const touchBody = z.strictObject({
  active_organization_id: z.preprocess((v) => (v === '' ? null : v), z.string().max(64).nullable().optional()),
});

export const client = {
  get: endpoint<FapiAuth, never, z.output<typeof clientQuery>>({
    summary: 'Boot the client: its live sessions and the active one; session null when signed out. Never 401.',
    query: clientQuery,
    response: clientSchema,
    handle: ({ deps, auth }) => clientView(deps, auth.instance, auth.client),
  }),
  delete: endpoint<FapiAuth>({
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
  }),
};

export const clientSessions = {
  createToken: endpoint<FapiAuth, never, never, 'id'>({
    summary: 'A fresh session JWT for a live session of this client',
    audit: { unaudited: 'hot path: a short-lived token for a live session; changes nothing' },
    response: z.object({ object: z.literal('token'), jwt: z.string() }),
    handle: async ({ deps, auth, params, request }) => {
      if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'This device is signed out: no valid client.' });
      // azp: the allowed browser origin asking for the token (Clerk's authorizedParties check reads it).
      const azp = request.origin && allowedOrigins(auth.instance, auth.instance.fapiUrl).has(request.origin) ? request.origin : null;
      return clientSessionToken(deps, auth.instance, auth.client.id, params.id, azp);
    },
  }),
  refresh: endpoint<FapiAuth, z.output<typeof refreshBody>, never, 'id'>({
    summary: 'Exchange a refresh token (the credential) for a session JWT and the next refresh token',
    audit: { unaudited: 'hot path: token rotation is recorded on the session (reuse revokes it, audited as session.revoked)' },
    body: refreshBody,
    response: sessionTokensSchema,
    handle: ({ deps, auth, params, body }) => refreshSession(deps, auth.instance, params.id, body.refresh_token),
  }),
  end: endpoint<FapiAuth, never, never, 'id'>({
    summary: 'Sign one session of this client out (session.ended)',
    audit: { action: 'session.ended' },
    response: sessionResponse,
    handle: async ({ deps, auth, params, request }) => {
      const client = requireClient(auth);
      const session = await endClientSession(deps, auth.instance, client, params.id, 'end', auditOf(client, request));
      return { response: session, client: await clientView(deps, auth.instance, await freshClient(deps, client.id)) };
    },
  }),
  remove: endpoint<FapiAuth, never, never, 'id'>({
    summary: 'Remove one session from this client (session.removed)',
    audit: { action: 'session.removed' },
    response: sessionResponse,
    handle: async ({ deps, auth, params, request }) => {
      const client = requireClient(auth);
      const session = await endClientSession(deps, auth.instance, client, params.id, 'remove', auditOf(client, request));
      return { response: session, client: await clientView(deps, auth.instance, await freshClient(deps, client.id)) };
    },
  }),
  endAll: endpoint<FapiAuth>({
    summary: 'Sign every session of this client out (session.ended each); the client stays',
    audit: { action: 'session.ended_all' },
    response: z.object({ response: clientSchema, client: clientSchema }),
    handle: async ({ deps, auth, request }) => {
      const client = requireClient(auth);
      await endAllClientSessions(deps, auth.instance, client, auditOf(client, request));
      const view = await clientView(deps, auth.instance, await freshClient(deps, client.id));
      return { response: view, client: view };
    },
  }),
  touch: endpoint<FapiAuth, z.output<typeof touchBody>, never, 'id'>({
    summary: 'Make a live session of this client the active one (switch user), optionally set its active organization, and mark activity',
    audit: { unaudited: 'activity mark: recorded as the session’s latest_activity and active organization' },
    body: touchBody,
    response: z.object({ response: clientSessionSchema, client: clientSchema }),
    handle: async ({ deps, auth, params, body, request }) => {
      const client = requireClient(auth);
      await touchClientSession(deps, auth.instance, client, params.id, body.active_organization_id, request);
      const view = await clientView(deps, auth.instance, await freshClient(deps, client.id));
      return { response: view.sessions.find((s) => s.id === params.id)!, client: view };
    },
  }),
};

export const mySessions = {
  list: endpoint<SignedInAuth, never, MeQuery>({
    summary: 'The signed-in user’s live sessions on every device, marked current and this_client',
    query: meQuery,
    response: meSessionList,
    handle: async ({ deps, auth }) => {
      const { me } = auth;
      return listMySessions(deps, auth.instance.id, me, auth.client?.id ?? null);
    },
  }),
  revoke: endpoint<SignedInAuth, Record<string, never>, MeQuery, 'id'>({
    summary: 'Revoke one of the signed-in user’s sessions, on any device (session.revoked)',
    audit: { action: 'session.revoked' },
    query: meQuery,
    response: sessionSchema,
    handle: async ({ deps, auth, params, actor }) => {
      const { me } = auth;
      return revokeMySession(deps, auth.instance.id, me, params.id, auditContextOf(actor));
    },
  }),
  revokeOthers: endpoint<SignedInAuth, Record<string, never>, MeQuery>({
    summary: 'Sign out other devices: revoke every live session of the signed-in user but the current one',
    audit: { action: 'session.revoked_others' },
    query: meQuery,
    response: meSessionList,
    handle: async ({ deps, auth, actor }) => {
      const { me } = auth;
      await revokeMyOtherSessions(deps, auth.instance.id, me, auditContextOf(actor));
      return listMySessions(deps, auth.instance.id, me, auth.client?.id ?? null);
    },
  }),
};
