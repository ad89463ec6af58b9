import type { Deps } from '../../../deps';
import type { InstanceContext } from '../../../instances/instances';

/**
 * Clerk's browser client (`@clerk/clerk-js` 6, and everything built on it) sends
 * `__clerk_api_version` and `_clerk_js_version` on every FAPI request, and `@clerk/backend`
 * sends `__clerk_api_version` with its handshake. The API version selects the Clerk dialect of
 * the FAPI, as `Clerk-API-Version` selects it on the BAPI; without it the FAPI is Latchkey's
 * own (a client sending only its SDK version, `_clerk_js_version`, included).
 */
const CLERK_JS_VERSION_PARAM = '_clerk_js_version';
const CLERK_API_VERSION_PARAM = '__clerk_api_version';
/** The dev-browser token of Clerk's development instances (query parameter, and cookie on the app's side). */
export const DEV_BROWSER_PARAM = '__clerk_db_jwt';
export const DEV_BROWSER_HEADER = 'Clerk-Db-Jwt';
/** The session of the client a request acts for (clerk-js sends it with several sessions on one client). */
export const CLERK_SESSION_PARAM = '_clerk_session_id';

/** Clerk's own parameters, taken off the URL before Latchkey's routes see it (their query schemas stay strict). */
export const CLERK_QUERY_PARAMS = [
  CLERK_JS_VERSION_PARAM,
  CLERK_API_VERSION_PARAM,
  DEV_BROWSER_PARAM,
  '_method',
  CLERK_SESSION_PARAM,
  '_clerk_retry_attempt',
  'rotating_token_nonce',
  '__domain',
  'debug',
  'expired_token',
] as const;

/** What the dialect's reshapers know of a request beside its answer. */
export interface ClerkFapiState {
  deps: Deps;
  /** The fapi_url's instance: Clerk's client sends no publishable key. */
  instance: InstanceContext;
  /** The dev-browser token sent (`__clerk_db_jwt`), if any. */
  devBrowser: string | null;
}

export const isClerkFapiRequest = (url: URL) => url.searchParams.has(CLERK_API_VERSION_PARAM);
