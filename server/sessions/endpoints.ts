import { z } from 'zod';
import { auditContextOf } from '../http/actor';
import { endpoint } from '../http/endpoint';
import { instanceContext } from '../instances/instances';
import {
  listSessionsQuery,
  mintedSessionSchema,
  mintSessionBody,
  refreshBody,
  revokedAllSchema,
  sessionListSchema,
  sessionSchema,
  sessionTokensSchema,
  verifyBody,
} from './schemas';
import { applySessionAction, getSession, listSessions, mintSession, refreshSession, revokeUserSessions, verifySession } from './sessions';

/**
 * The session endpoints of one surface: `instanceOf` names the instance the caller acts on.
 * `params.id` is the session, or the user on `/users/:id/sessions…`.
 */
export function sessionEndpointsFor<Auth>(instanceOf: (auth: Auth) => { id: string }) {
  return {
    mint: endpoint<Auth, z.output<typeof mintSessionBody>>({
      summary: 'Mint a session (with actor: an impersonation session, also needs impersonation:write)',
      body: mintSessionBody,
      response: mintedSessionSchema,
      audit: { action: 'session.created' },
      handle: async ({ deps, auth, actor, body }) => {
        const instance = await instanceContext(deps, instanceOf(auth).id);
        return mintSession(deps, instance, { userId: body.user_id, actor: body.actor ?? null }, auditContextOf(actor));
      },
    }),
    list: endpoint<Auth, never, z.output<typeof listSessionsQuery>>({
      summary: 'List sessions, newest first, filtered by user_id and status',
      query: listSessionsQuery,
      response: sessionListSchema,
      handle: ({ deps, auth, query }) => listSessions(deps, instanceOf(auth).id, query),
    }),
    get: endpoint<Auth, never, never, 'id'>({
      summary: 'Get a session',
      response: sessionSchema,
      handle: ({ deps, auth, params }) => getSession(deps, instanceOf(auth).id, params.id),
    }),
    revoke: endpoint<Auth, never, never, 'id'>({
      summary: 'Revoke a session (signs that device out)',
      response: sessionSchema,
      audit: { action: 'session.revoked' },
      handle: ({ deps, auth, actor, params }) => applySessionAction(deps, instanceOf(auth).id, params.id, 'revoke', auditContextOf(actor)),
    }),
    refresh: endpoint<Auth, z.output<typeof refreshBody>, never, 'id'>({
      summary: 'Exchange a refresh token for a session JWT and the next refresh token',
      body: refreshBody,
      response: sessionTokensSchema,
      audit: {
        unaudited: 'the token refresh hot path; rotation is kept on the refresh token, and reuse revokes the session with its own entry',
      },
      handle: async ({ deps, auth, params, body }) =>
        refreshSession(deps, await instanceContext(deps, instanceOf(auth).id), params.id, body.refresh_token),
    }),
    verify: endpoint<Auth, z.output<typeof verifyBody>>({
      summary: 'Verify a session JWT authoritatively, including revocation',
      body: verifyBody,
      response: sessionSchema,
      audit: { unaudited: 'a read sent as POST, so the token stays out of URLs and logs' },
      handle: async ({ deps, auth, body }) => verifySession(deps, await instanceContext(deps, instanceOf(auth).id), body.token),
    }),
    revokeOfUser: endpoint<Auth, never, never, 'id'>({
      summary: 'Revoke every session of a user and increment their sessions_version',
      response: revokedAllSchema,
      audit: { action: 'session.revoked_all' },
      handle: ({ deps, auth, actor, params }) => revokeUserSessions(deps, instanceOf(auth).id, params.id, auditContextOf(actor)),
    }),
  };
}
