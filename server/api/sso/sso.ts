import { z } from 'zod';
import { endpoint, redirect, textResult } from '../../http/endpoint';
import { AppError, notFound } from '../../http/errors';
import { clientCookie } from '../fapi/authenticate';
import type { InstanceContext } from '../../instances/instances';
import type { Deps } from '../../deps';
import type { RequestInfo } from '../../http/endpoint';
import { loadConnection, type ConnectionRow } from '../../sso/connections';
import { assertBrowserBound, auditSsoFailure, awaitSsoClaim, completeSso, pendingRequest, type SsoIdentity } from '../../sso/flow';
import { oidcCallback } from '../../sso/oidc';
import { oidcIdentity, samlIdentity } from '../../sso/identity';
import { authnRequestFields, spMetadata, SsoRefused, validateSamlResponse } from '../../sso/saml';
import { autoPostForm } from '../../http/auto-post-form';
import { claimedInResponseTo, completeConnectionTest, pendingTestOf } from '../../portal/sso-tests';

// ---------------------------------------------------------------------------------------
// The SSO surface under each fapi_url: SP metadata, the ACS and the OIDC callback.

export interface SsoAuth {
  instance: InstanceContext;
  servedUrl: string;
}

const auditCtxOf = (request: RequestInfo) => ({ actor: 'anonymous', ip: request.ip, userAgent: request.userAgent });
async function activeConnection(deps: Deps, auth: SsoAuth, id: string, provider: 'saml' | 'oidc') {
  const c = await loadConnection(deps, auth.instance.id, id);
  if (c.provider !== provider) throw notFound('SSO connection');
  if (!c.active) throw new SsoRefused('connection_inactive', 'This SSO connection is not active.');
  return c;
}

/** Runs a callback; a refusal is audited with its reason and answered as an error page (FORBIDDEN). */
async function refusedIsAudited<T>(
  deps: Deps,
  auth: SsoAuth,
  connectionId: string,
  request: RequestInfo,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run();
  } catch (err) {
    if (isNotFound(err)) throw err;
    const reason = await auditSsoFailure(deps, auth.instance.id, connectionId, err, auditCtxOf(request));
    if (!(err instanceof SsoRefused)) throw err;
    throw new AppError('FORBIDDEN', { message: `Single sign-on was refused (${reason}).`, meta: { reason: err.reason } });
  }
}

const isNotFound = (err: unknown) => err instanceof AppError && err.code === 'NOT_FOUND';
function finish(auth: SsoAuth, done: { redirectUrl: string; newClientToken: string | null }) {
  const headers: Record<string, string> = { 'cache-control': 'no-store' };
  if (done.newClientToken)
    headers['set-cookie'] = clientCookie(
      auth.instance,
      done.newClientToken,
      auth.instance.settings.session_lifetime_seconds,
      auth.servedUrl,
    );
  return redirect(done.redirectUrl, 303, headers);
}

/** A verified answer: signs in the browser it is bound to, or — bound to a native app — waits for the app's claim. */
async function answer(
  deps: Deps,
  auth: SsoAuth,
  c: ConnectionRow,
  pending: Awaited<ReturnType<typeof pendingRequest>>,
  identity: SsoIdentity,
  request: RequestInfo,
) {
  if (pending?.codeChallenge)
    return redirect(await awaitSsoClaim(deps, auth.instance, pending, identity), 303, {
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    });
  return finish(auth, await completeSso(deps, auth.instance, c, pending, identity, auditCtxOf(request)));
}

/**
 * The admin portal's "Test connection" answer (server/portal/sso-tests.ts), when the request
 * it answers is a test's and came back to the browser that started it: checked like a
 * sign-in, signing no one in, then the browser goes to the portal's result page.
 */
async function portalTest(deps: Deps, auth: SsoAuth, connectionId: string, handle: string | null, cookie: string | undefined) {
  if (!handle) return null;
  const c = await loadConnection(deps, auth.instance.id, connectionId);
  const pending = await pendingRequest(deps, c, handle);
  if (!pending) return null;
  const test = await pendingTestOf(deps, pending.id);
  if (!test) return null;
  try {
    assertBrowserBound(pending, cookie);
  } catch {
    return null;
  }
  return { test, pending };
}

const SIGN_IN_AUDIT = { action: 'sso.sign_in', recordedBy: 'domain' as const };
export const ssoSurface = {
  samlMetadata: endpoint<SsoAuth, never, never, 'connection_id'>({
    summary: 'The SAML service-provider metadata of a connection (entity id, ACS URL)',
    response: z.string(),
    handle: async ({ deps, auth, params }) => {
      const c = await loadConnection(deps, auth.instance.id, params.connection_id);
      if (c.provider !== 'saml') throw notFound('SSO connection');
      return textResult(spMetadata(deps, c, auth.instance.fapiUrl), 'application/samlmetadata+xml; charset=utf-8');
    },
  }),
  samlRequestForm: endpoint<SsoAuth, never, never, 'connection_id' | 'request_id'>({
    summary: 'The AuthnRequest of a sign-in in flight as an auto-submitting form, for an IdP that offers only the HTTP-POST binding',
    response: z.string(),
    handle: async ({ deps, auth, params }) => {
      const c = await activeConnection(deps, auth, params.connection_id, 'saml').catch(() => {
        throw notFound('SSO request');
      });
      const pending = c.idpSsoBinding === 'post' ? await pendingRequest(deps, c, params.request_id, 'id') : null;
      if (!pending || !c.idpSsoUrl) throw notFound('SSO request');
      return autoPostForm(c.idpSsoUrl, await authnRequestFields(deps, c, auth.instance.fapiUrl, pending.handle), 'Signing in…');
    },
  }),
  samlAcs: endpoint<SsoAuth, { SAMLResponse: string; RelayState?: string }, never, 'connection_id'>({
    summary: 'The assertion consumer service (HTTP-POST binding): a signed response signs the user in and redirects to redirect_url',
    audit: SIGN_IN_AUDIT,
    body: z.object({
      SAMLResponse: z
        .string()
        .min(1)
        .max(512 * 1024),
      RelayState: z.string().max(1024).optional(),
    }),
    response: z.unknown(),
    handle: async ({ deps, auth, params, body, request, raw }) => {
      const testing = await portalTest(deps, auth, params.connection_id, claimedInResponseTo(body.SAMLResponse), raw.header('cookie'));
      if (testing) {
        const landing = await completeConnectionTest(
          deps,
          auth.instance,
          testing.test,
          async (c) => {
            const validated = await validateSamlResponse(deps, c, auth.instance.fapiUrl, body.SAMLResponse);
            if (validated.inResponseTo !== testing.pending.handle)
              throw new SsoRefused('in_response_to_mismatch', 'The SAML response answers another request.');
            return samlIdentity(c, validated);
          },
          body.SAMLResponse,
        );
        return redirect(landing, 303, { 'cache-control': 'no-store' });
      }
      return refusedIsAudited(deps, auth, params.connection_id, request, async () => {
        const c = await activeConnection(deps, auth, params.connection_id, 'saml');
        const validated = await validateSamlResponse(deps, c, auth.instance.fapiUrl, body.SAMLResponse);
        const { inResponseTo } = validated;
        const pending = inResponseTo ? await pendingRequest(deps, c, inResponseTo) : null;
        if (inResponseTo && !pending) throw new SsoRefused('in_response_to_mismatch', 'The SAML response answers no request of ours.');
        if (!inResponseTo && !c.allowIdpInitiated)
          throw new SsoRefused('idp_initiated_disabled', 'IdP-initiated sign-in is not enabled for this connection.');
        // IdP-initiated (no request): completeSso signs in a new client of the browser that posts, never a client of ours.
        if (pending) assertBrowserBound(pending, raw.header('cookie'));
        return answer(deps, auth, c, pending, samlIdentity(c, validated), request);
      });
    },
  }),
  oidcCallback: endpoint<SsoAuth, never, Record<string, string>, 'connection_id'>({
    summary: 'The OIDC redirect URI: the code is redeemed with PKCE, state and nonce checked, and the user signed in',
    audit: SIGN_IN_AUDIT,
    query: z.record(z.string().max(64), z.string().max(4096)),
    response: z.unknown(),
    handle: async ({ deps, auth, params, query, request, raw }) => {
      const testing = await portalTest(deps, auth, params.connection_id, query.state ?? null, raw.header('cookie'));
      if (testing) {
        const landing = await completeConnectionTest(deps, auth.instance, testing.test, async (c) => {
          if (query.error) throw new SsoRefused('idp_error', `The identity provider answered ${query.error.slice(0, 64)}.`);
          const current = new URL(`${auth.instance.fapiUrl}/sso/oidc/${c.id}/callback`);
          for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
          const claims = await oidcCallback(deps, auth.instance, c, current, {
            state: testing.pending.handle,
            codeVerifier: deps.cipher.decrypt(testing.pending.codeVerifier!),
            nonce: testing.pending.nonce!,
          });
          return oidcIdentity(c, claims);
        });
        return redirect(landing, 303, { 'cache-control': 'no-store' });
      }
      return refusedIsAudited(deps, auth, params.connection_id, request, async () => {
        const c = await activeConnection(deps, auth, params.connection_id, 'oidc');
        if (query.error) throw new SsoRefused('idp_error', `The identity provider answered ${query.error.slice(0, 64)}.`);
        const pending = query.state ? await pendingRequest(deps, c, query.state) : null;
        if (!pending) throw new SsoRefused('in_response_to_mismatch', 'The state answers no request of ours.');
        // Before the code is redeemed: an answer carried to another browser redeems nothing.
        assertBrowserBound(pending, raw.header('cookie'));
        const current = new URL(`${auth.instance.fapiUrl}/sso/oidc/${c.id}/callback`);
        for (const [k, v] of Object.entries(query)) current.searchParams.set(k, v);
        const claims = await oidcCallback(deps, auth.instance, c, current, {
          state: pending.handle,
          codeVerifier: deps.cipher.decrypt(pending.codeVerifier!),
          nonce: pending.nonce!,
        });
        return answer(deps, auth, c, pending, oidcIdentity(c, claims), request);
      });
    },
  }),
};
