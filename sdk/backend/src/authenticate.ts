import { TokenExpiredError, TokenVerificationError } from './errors.js';
import { withDefaults } from './options.js';
import { createTokenVerifier, perConfiguration, type SessionAuth, type TokenVerifier, type VerifyOptions } from './verify.js';

/** The cookie the browser SDK keeps the session JWT in, on the app's own site. */
export const SESSION_COOKIE = '__session';

export type RequestState =
  | { status: 'signed-in'; auth: SessionAuth; token: string; source: 'header' | 'cookie' }
  | { status: 'signed-out'; auth: null; reason: string; error?: TokenVerificationError }
  /** The cookie's token is stale: the browser should refresh it (the browser SDK does) and retry. */
  | { status: 'handshake'; auth: null; reason: string; error?: TokenVerificationError };

/** Anything with headers: a Fetch `Request`, Node's `IncomingMessage`, Express's or Hono's request. */
export type RequestLike = { headers: Headers | Record<string, string | string[] | undefined> };

function header(req: RequestLike, name: string): string | undefined {
  const h = req.headers;
  if (typeof (h as Headers).get === 'function') return (h as Headers).get(name) ?? undefined;
  const v = (h as Record<string, string | string[] | undefined>)[name];
  return Array.isArray(v) ? v[0] : v;
}

function cookie(req: RequestLike, name: string): string | undefined {
  const raw = header(req, 'cookie');
  if (!raw) return undefined;
  for (const part of raw.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export interface AuthenticateOptions extends VerifyOptions {
  /** Cookie holding the session JWT (default `__session`). */
  cookieName?: string;
}

/** An authenticator bound to one instance (one key set cache): build it once per process. */
export function createAuthenticator(opts: AuthenticateOptions) {
  const verifier: TokenVerifier = createTokenVerifier(opts);
  const { cookieName } = withDefaults({ cookieName: SESSION_COOKIE }, opts);
  return async function authenticateRequest(req: RequestLike): Promise<RequestState> {
    const bearer = /^Bearer\s+(\S+)$/i.exec(header(req, 'authorization') ?? '')?.[1];
    const fromCookie = bearer ? undefined : cookie(req, cookieName);
    const token = bearer ?? fromCookie;
    if (!token) return { status: 'signed-out', auth: null, reason: 'no-token' };
    try {
      return { status: 'signed-in', auth: await verifier.verify(token), token, source: bearer ? 'header' : 'cookie' };
    } catch (e) {
      if (!(e instanceof TokenVerificationError)) throw e;
      // A cookie's token expires every minute or so; the browser holds what it takes to renew it.
      if (fromCookie && e instanceof TokenExpiredError) return { status: 'handshake', auth: null, reason: e.reason, error: e };
      return { status: 'signed-out', auth: null, reason: e.reason, error: e };
    }
  };
}

const authenticatorFor = perConfiguration(createAuthenticator, (opts: AuthenticateOptions) => [opts.cookieName]);

/** `authenticateRequest(request, options)`: bearer header or session cookie → signed-in / signed-out / handshake. */
export function authenticateRequest(req: RequestLike, opts: AuthenticateOptions): Promise<RequestState> {
  return authenticatorFor(opts)(req);
}

export interface MiddlewareOptions extends AuthenticateOptions {
  /** Answer 401 to a request that is not signed in (default false: the handler decides). */
  requireAuth?: boolean;
}

const unauthorized = (state: RequestState) => ({
  errors: [
    {
      code: state.status === 'handshake' ? 'SESSION_TOKEN_STALE' : 'UNAUTHENTICATED',
      message: 'Sign in required.',
      meta: { reason: 'reason' in state ? state.reason : undefined },
    },
  ],
});

/** Express / Connect / Node `http` middleware: puts the state on `req.auth`. */
export function latchkeyExpress(opts: MiddlewareOptions) {
  const authenticate = createAuthenticator(opts);
  return (
    req: RequestLike & { auth?: RequestState },
    res: { statusCode: number; setHeader(n: string, v: string): unknown; end(body?: string): unknown },
    next: (err?: unknown) => void,
  ) => {
    authenticate(req).then((state) => {
      req.auth = state;
      if (opts.requireAuth && state.status !== 'signed-in') {
        res.statusCode = 401;
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(unauthorized(state)));
        return;
      }
      next();
    }, next);
  };
}

/** Hono middleware: `c.get('latchkey')` is the request state. */
export function latchkeyHono(opts: MiddlewareOptions) {
  const authenticate = createAuthenticator(opts);
  return async (
    c: { req: { raw: Request }; set(key: 'latchkey', value: RequestState): void; json(body: unknown, status: 401): Response },
    next: () => Promise<void>,
  ) => {
    const state = await authenticate(c.req.raw);
    c.set('latchkey', state);
    if (opts.requireAuth && state.status !== 'signed-in') return c.json(unauthorized(state), 401);
    await next();
  };
}
