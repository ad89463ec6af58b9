import { z } from 'zod';
import { endpoint } from '../../http/endpoint';
import { auditContextOf } from '../../http/actor';
import type { BapiAuth } from './authenticate';
import { actorSchema } from '../../sessions/schemas';
import { createTicket, revokeTicket, type TicketKind } from '../../sessions/tickets';
import { sessionEndpointsFor } from '../../sessions/endpoints';

/** BAPI endpoints of actor tokens (impersonation:write) and sign-in tokens (sign_in_tokens:write). */

const HOUR = 3600;
const DAY = 24 * HOUR;
export const ACTOR_TOKEN_TTL = { default: HOUR, max: 7 * DAY } as const;
const SIGN_IN_TOKEN_TTL = { default: 30 * DAY, max: 30 * DAY } as const;

const ticketFields = {
  id: z.string(),
  user_id: z.string(),
  status: z.enum(['pending', 'accepted', 'revoked']),
  expires_at: z.number().int(),
  created_at: z.number().int(),
  updated_at: z.number().int(),
};
export const actorTokenSchema = z
  .object({ object: z.literal('actor_token'), ...ticketFields, actor: actorSchema.nullable() })
  .meta({ id: 'ActorToken' });
const signInTokenSchema = z.object({ object: z.literal('sign_in_token'), ...ticketFields }).meta({ id: 'SignInToken' });
/** The secret ticket, in the create response only. */
const withToken = { token: z.string() };

const ttl = (t: { default: number; max: number }) => z.number().int().min(30).max(t.max).default(t.default);

export const createActorTokenBody = z.strictObject({
  user_id: z.string().min(1).max(64),
  actor: actorSchema,
  expires_in_seconds: ttl(ACTOR_TOKEN_TTL),
});
export const createSignInTokenBody = z.strictObject({
  user_id: z.string().min(1).max(64),
  expires_in_seconds: ttl(SIGN_IN_TOKEN_TTL),
});

const revokeEndpoint = (kind: TicketKind, schema: z.ZodType) =>
  endpoint<BapiAuth, never, never, 'id'>({
    summary: `Revoke a pending ${kind.replaceAll('_', ' ')} (a redeemed one is 409)`,
    audit: { action: kind === 'actor_token' ? 'impersonation.actor_token_revoked' : 'sign_in_token.revoked', recordedBy: 'domain' },
    response: schema,
    handle: ({ deps, auth, params, actor }) => revokeTicket(deps, auth.instance.id, kind, params.id, auditContextOf(actor)),
  });

export const bapiSessions = sessionEndpointsFor<BapiAuth>((auth) => auth.instance);

export const actorTokens = {
  create: endpoint<BapiAuth, z.output<typeof createActorTokenBody>>({
    summary: 'Create an actor token: a one-time ticket a FAPI sign-in redeems for an impersonation session',
    audit: { action: 'impersonation.actor_token_created' },
    body: createActorTokenBody,
    response: actorTokenSchema.extend(withToken),
    handle: ({ deps, auth, body, actor }) =>
      createTicket(
        deps,
        auth.instance.id,
        { kind: 'actor_token', userId: body.user_id, actor: body.actor, expiresInSeconds: body.expires_in_seconds },
        auditContextOf(actor),
      ),
  }),
  revoke: revokeEndpoint('actor_token', actorTokenSchema),
};

export const signInTokens = {
  create: endpoint<BapiAuth, z.output<typeof createSignInTokenBody>>({
    summary: 'Create a sign-in token: a one-time ticket a FAPI sign-in redeems for a session',
    audit: { action: 'sign_in_token.created' },
    body: createSignInTokenBody,
    response: signInTokenSchema.extend(withToken),
    handle: ({ deps, auth, body, actor }) =>
      createTicket(
        deps,
        auth.instance.id,
        { kind: 'sign_in_token', userId: body.user_id, expiresInSeconds: body.expires_in_seconds },
        auditContextOf(actor),
      ),
  }),
  revoke: revokeEndpoint('sign_in_token', signInTokenSchema),
};
