import { z } from 'zod';
import { endpoint } from '../http/endpoint';
import { instanceContext } from '../instances/instances';
import type { BapiAuth } from '../keys/bapi-auth';
import { getUser } from '../users/users';
import {
  listSessionsQuery,
  mintedSessionSchema,
  mintSessionBody,
  refreshBody,
  revokedAllSchema,
  sessionListSchema,
  sessionSchema,
  tokenResponseSchema,
  userSessionsQuery,
  verifyBody,
} from './schemas';
import {
  applySessionAction,
  getSession,
  listSessions,
  mintSession,
  refreshSession,
  revokeUserSessions,
  verifySession,
} from './sessions';

const auditCtx = (auth: BapiAuth, request: { ip: string | null; userAgent: string | null }) => ({
  actor: auth.actor,
  ip: request.ip,
  userAgent: request.userAgent,
});

export const mintSessionEndpoint = endpoint<BapiAuth, z.output<typeof mintSessionBody>>({
  summary: 'Mint a session (with actor: an impersonation session, also needs impersonation:write)',
  body: mintSessionBody,
  response: mintedSessionSchema,
  handle: async ({ deps, auth, body, request }) => {
    const instance = await instanceContext(deps, auth.instance.id);
    return mintSession(deps, instance, { userId: body.user_id, actor: body.actor ?? null }, auditCtx(auth, request));
  },
});

export const listSessionsEndpoint = endpoint<BapiAuth, never, z.output<typeof listSessionsQuery>>({
  summary: 'List sessions, newest first, filtered by user_id and status',
  query: listSessionsQuery,
  response: sessionListSchema,
  handle: ({ deps, auth, query }) => listSessions(deps, auth.instance.id, query),
});

export const getSessionEndpoint = endpoint<BapiAuth>({
  summary: 'Get a session',
  response: sessionSchema,
  handle: ({ deps, auth, params }) => getSession(deps, auth.instance.id, params.id!),
});

export const revokeSessionEndpoint = endpoint<BapiAuth>({
  summary: 'Revoke a session (signs that device out)',
  response: sessionSchema,
  handle: ({ deps, auth, params, request }) =>
    applySessionAction(deps, auth.instance.id, params.id!, 'revoke', auditCtx(auth, request)),
});

export const refreshSessionEndpoint = endpoint<BapiAuth, z.output<typeof refreshBody>>({
  summary: 'Exchange a refresh token for a session JWT and the next refresh token',
  body: refreshBody,
  response: tokenResponseSchema,
  handle: async ({ deps, auth, params, body }) =>
    refreshSession(deps, await instanceContext(deps, auth.instance.id), params.id!, body.refresh_token),
});

export const verifySessionEndpoint = endpoint<BapiAuth, z.output<typeof verifyBody>>({
  summary: 'Verify a session JWT authoritatively, including revocation',
  body: verifyBody,
  response: sessionSchema,
  handle: async ({ deps, auth, body }) => verifySession(deps, await instanceContext(deps, auth.instance.id), body.token),
});

export const listUserSessionsEndpoint = endpoint<BapiAuth, never, z.output<typeof userSessionsQuery>>({
  summary: 'List a user’s sessions',
  query: userSessionsQuery,
  response: sessionListSchema,
  handle: async ({ deps, auth, params, query }) => {
    await getUser(deps, auth.instance.id, params.id!);
    return listSessions(deps, auth.instance.id, { ...query, user_id: params.id! });
  },
});

export const revokeUserSessionsEndpoint = endpoint<BapiAuth>({
  summary: 'Revoke every session of a user and increment their sessions_version',
  response: revokedAllSchema,
  handle: ({ deps, auth, params, request }) => revokeUserSessions(deps, auth.instance.id, params.id!, auditCtx(auth, request)),
});
