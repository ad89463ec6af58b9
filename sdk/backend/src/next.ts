import { createAuthenticator, type AuthenticateOptions, type RequestState } from './authenticate.js';

/**
 * Next.js helpers. `auth(request)` in a route handler; `auth()` without a request reads the
 * incoming headers through `next/headers` (server components, server actions);
 * `middleware` protects paths in `middleware.ts`.
 */
export function createNextAuth(opts: AuthenticateOptions & { signInUrl?: string }) {
  const authenticate = createAuthenticator(opts);

  async function auth(request?: Request): Promise<RequestState> {
    if (request) return authenticate(request);
    const mod = (await import(/* webpackIgnore: true */ 'next/headers' as string)) as { headers(): Promise<Headers> | Headers };
    return authenticate({ headers: await mod.headers() });
  }

  /**
   * `export default latchkey.middleware({ protect: (url) => url.pathname.startsWith('/app') })`:
   * a signed-out visitor of a protected path goes to `signInUrl` (pages) or gets 401 (`/api`).
   * Answers undefined to let the request through.
   */
  function middleware(o: { protect?: (url: URL) => boolean } = {}) {
    return async (request: Request): Promise<Response | undefined> => {
      const url = new URL(request.url);
      if (o.protect && !o.protect(url)) return undefined;
      const state = await authenticate(request);
      if (state.status === 'signed-in') return undefined;
      if (url.pathname.startsWith('/api') || !opts.signInUrl) {
        return Response.json({ errors: [{ code: 'UNAUTHENTICATED', message: 'Sign in required.', meta: {} }] }, { status: 401 });
      }
      const target = new URL(opts.signInUrl);
      target.searchParams.set('redirect_url', url.toString());
      return Response.redirect(target.toString(), 307);
    };
  }
  return { auth, middleware };
}
