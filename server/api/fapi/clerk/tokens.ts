import { and, eq } from 'drizzle-orm';
import { z } from 'zod';
import { sessions } from '../../../db/schema';
import { endpoint } from '../../../http/endpoint';
import { AppError, notFound } from '../../../http/errors';
import type { FapiAuth } from '../authenticate';
import { settleOverdue } from '../../../sessions/sessions';

/**
 * `POST /v1/client/sessions/:id/tokens/:template`, clerk-js's `session.getToken({ template })`.
 * Latchkey has no named JWT templates: every session JWT carries the instance's one session
 * token template (`session_token_claims`, server/sessions/claims-template.ts), which
 * `getToken()` without a template answers. So every name is unknown: 404 naming the template,
 * as the BAPI's `/v1/sessions/:id/tokens/:template` answers (server/api/bapi/clerk/endpoints.ts). The
 * session is checked first, so a session that is not this client's, or no longer live,
 * answers as such.
 */
export const templateTokenEndpoint = endpoint<FapiAuth>({
  summary: 'A session JWT from a named JWT template (none exist: 404 naming the template)',
  audit: { unaudited: 'refuses every template; mints nothing' },
  response: z.object({ object: z.literal('token'), jwt: z.string() }),
  handle: async ({ deps, auth, params }) => {
    if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'This device is signed out: no valid client.' });
    const [session] = await deps.db
      .select()
      .from(sessions)
      .where(and(eq(sessions.id, params.id!), eq(sessions.instanceId, auth.instance.id), eq(sessions.clientId, auth.client.id)));
    if (!session) throw notFound('session');
    const dead = await settleOverdue(deps, session);
    if (dead) throw dead;
    throw new AppError('NOT_FOUND', {
      message: `No JWT template named ${params.template} exists: getToken() without a template answers the session token, with the instance's session token claims.`,
      meta: { param: 'template' },
    });
  },
});
