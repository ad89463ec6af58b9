import { endpoint } from '../../../http/endpoint';
import { AppError } from '../../../http/errors';
import type { FapiAuth } from '../authenticate';
import { clientTemplateToken, templateTokenSchema } from '../../../sessions/jwt-templates';
import { allowedOrigins } from '../origin';

export const templateTokens = {
  /**
   * `POST /v1/client/sessions/:id/tokens/:template`, clerk-js's `session.getToken({ template })`:
   * a JWT from the named JWT template (server/sessions/jwt-templates.ts). The session passes
   * the session token's checks first (another client's session is 404, an ended one answers
   * its code), then an unknown template is 404 naming it.
   */
  create: endpoint<FapiAuth, never, never, 'id' | 'template'>({
    summary: 'A JWT from a named JWT template for a live session of this client (unknown template: 404)',
    audit: { unaudited: 'a short-lived token of a live session, like the session token; changes nothing' },
    response: templateTokenSchema,
    handle: async ({ deps, auth, params, request }) => {
      if (!auth.client) throw new AppError('UNAUTHENTICATED', { message: 'This device is signed out: no valid client.' });
      // azp: the allowed browser origin asking for the token, as on the session token.
      const azp = request.origin && allowedOrigins(auth.instance, auth.instance.fapiUrl).has(request.origin) ? request.origin : null;
      return clientTemplateToken(deps, auth.instance, auth.client.id, params.id, params.template, azp);
    },
  }),
};
