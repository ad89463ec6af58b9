import { SignJWT } from 'jose';
import { z } from 'zod';
import { endpoint, redirect } from '../../../http/endpoint';
import { AppError, validationError } from '../../../http/errors';
import { isAllowedAppUrl } from '../../../users/email-links';
import type { InstanceContext } from '../../../instances/instances';
import { REASONS } from '../../../instances/reasons';
import { clientSessionToken, clientView, createClient, type ClientRow } from '../../../sessions/clients';
import type { FapiAuth } from '../authenticate';
import { ALG, currentSigner } from '../../../signing/signing-keys';
import type { Deps } from '../../../deps';

/**
 * Clerk's development-instance contract, for `@clerk/backend` and clerk-js pointed at a test
 * instance:
 *
 * - `POST /v1/dev_browser` hands a browser that cannot keep the FAPI's cookie (another site) a
 *   token for its client, which it then sends as `__clerk_db_jwt` on every request. It is the
 *   client's own token (the Clerk dialect treats it as the `__client` cookie, which wins when
 *   both are sent); when a sign-in rotates it, the answer's `Clerk-Db-Jwt` header carries the
 *   new one. Test instances only: it puts a client credential in URLs and in the app's cookies,
 *   as Clerk's development instances do.
 * - `GET /v1/client/handshake` is where `@clerk/backend`'s `authenticateRequest` sends a page
 *   load whose cookies it cannot trust (no `__session`, an expired one, no dev browser): it
 *   answers 307 back to `redirect_url` with `__clerk_handshake`, a JWT signed by the instance's
 *   key (verified by the SDK through the JWKS) listing the cookies to set on the app: a fresh
 *   `__session` (or its removal when signed out), `__client_uat`, and on test instances
 *   `__clerk_db_jwt`.
 */

const HANDSHAKE_TTL_S = 60;

/** The token of the request's client; a new client (its cookie set) when there is none. */
async function clientTokenOf(deps: Pick<Deps, 'db' | 'clock'>, auth: FapiAuth): Promise<string> {
  if (auth.client && auth.clientToken) return auth.clientToken;
  const { token } = await createClient(deps, auth.instance.id);
  auth.issueClientToken(token);
  return token;
}

const handshakeQuery = z.object({
  redirect_url: z.string().min(1).max(4096),
  suffixed_cookies: z.enum(['true', 'false']).optional(),
  __clerk_hs_reason: z.string().max(200).optional(),
  format: z.string().max(20).optional(),
  __session: z.string().max(8192).optional(),
  organization_id: z.string().max(256).optional(),
});

/** `__session` and `__client_uat` (and their suffixed copies, which clerk-js and the SDK prefer when present). */
function cookieDirectives(names: string[], value: string, maxAge: number, sameSite: 'Lax' | 'Strict', secure: boolean) {
  return names.map((n) => `${n}=${value}; Path=/; Max-Age=${maxAge}; SameSite=${sameSite}${secure ? '; Secure' : ''}`);
}

async function sessionCookies(deps: Deps, instance: InstanceContext, client: ClientRow | null, origin: string) {
  if (!client) return { jwt: null, uat: 0 };
  const view = await clientView(deps, instance, client);
  const session = view.session?.status === 'active' ? view.session : null;
  if (!session) return { jwt: null, uat: 0 };
  const { jwt } = await clientSessionToken(deps, instance, client.id, session.id, origin);
  return { jwt, uat: Math.floor(client.updatedAt / 1000) };
}

/** Clerk's cookie suffix: the first 8 characters of base64url(SHA-1(publishable key)). */
async function cookieSuffix(publishableKey: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-1', new TextEncoder().encode(publishableKey));
  return Buffer.from(digest).toString('base64').replace(/\+/g, '-').replace(/\//g, '_').substring(0, 8);
}

export const devBrowser = {
  create: endpoint<FapiAuth>({
    summary: 'Clerk development instances: a dev-browser token for this browser’s client (test instances only)',
    audit: { unaudited: 'hands out the token of a new or existing client; signs nobody in' },
    response: z.object({ object: z.literal('dev_browser'), id: z.string() }),
    handle: async ({ deps, auth }) => {
      if (auth.instance.environment !== 'test') throw new AppError('NOT_FOUND', { message: 'Dev browsers exist on test instances only.' });
      return { object: 'dev_browser' as const, id: await clientTokenOf(deps, auth) };
    },
  }),
};

export const handshake = {
  get: endpoint<FapiAuth, never, z.output<typeof handshakeQuery>>({
    summary: 'Clerk’s handshake for @clerk/backend: back to redirect_url with the cookies the app should hold, signed',
    audit: { unaudited: 'mints a short-lived token of the browser’s active session, like a token request' },
    query: handshakeQuery,
    response: z.unknown(),
    handle: async ({ deps, auth, query }) => {
      const { instance } = auth;
      let target: URL;
      try {
        target = new URL(query.redirect_url);
      } catch {
        throw validationError('redirect_url', REASONS.redirect_url_not_allowed, 'redirect_url is not a URL.');
      }
      if (!isAllowedAppUrl(instance, target.href))
        throw validationError(
          'redirect_url',
          REASONS.redirect_url_not_allowed,
          'redirect_url is not one of the instance’s allowed origins or redirect URLs.',
        );

      const secure = target.protocol === 'https:';
      const suffix = query.suffixed_cookies === 'true' ? await cookieSuffix(instance.publishableKey) : null;
      const names = (base: string) => (suffix ? [base, `${base}_${suffix}`] : [base]);
      const { jwt, uat } = await sessionCookies(deps, instance, auth.client, target.origin);
      const directives = [
        ...(jwt
          ? cookieDirectives(names('__session'), jwt, 60 * 60 * 24 * 7, 'Lax', secure)
          : cookieDirectives(names('__session'), '', 0, 'Lax', secure)),
        ...cookieDirectives(names('__client_uat'), String(uat), 60 * 60 * 24 * 365, 'Strict', secure),
      ];
      if (instance.environment === 'test')
        directives.push(...cookieDirectives(names('__clerk_db_jwt'), await clientTokenOf(deps, auth), 60 * 60 * 24 * 365, 'Lax', secure));

      const signer = await currentSigner(deps, instance.id);
      const now = Math.floor(deps.clock.now() / 1000);
      const token = await new SignJWT({ handshake: directives })
        .setProtectedHeader({ alg: ALG, kid: signer.kid, typ: 'JWT' })
        .setIssuer(instance.fapiUrl)
        .setIssuedAt(now)
        .setExpirationTime(now + HANDSHAKE_TTL_S)
        .sign(signer.key);
      target.searchParams.set('__clerk_handshake', token);
      return redirect(target.href, 302, { 'cache-control': 'no-store', 'referrer-policy': 'no-referrer' });
    },
  }),
};
