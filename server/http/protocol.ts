import type { Context } from 'hono';
import type { Deps } from '../deps';
import type { BodyMedia } from './body';
import { AppError, isAppError, type ErrorCode } from './errors';
import { databaseFault, type DatabaseFault } from '../db/errors';
import type { SurfaceEnv } from './request-context';

/**
 * A surface's wire protocol: which bodies it reads and how it writes JSON results and
 * errors. Request ids, logging, metrics and the body limit are the router's, the same on
 * every protocol.
 */
export interface Protocol {
  name: 'json' | 'oauth' | 'scim' | 'html';
  media: readonly BodyMedia[];
  /** Refuse repeated form parameters (OAuth, LTI). */
  strictForm?: boolean;
  /** Content type of a JSON result. */
  contentType: string;
  renderError(err: AppError, c: Context<SurfaceEnv>): Response;
}

/** Turns anything thrown into an AppError; unexpected errors are logged (with their stack) and become INTERNAL_ERROR. */
export function toAppError(deps: Deps, err: unknown, c: Context<SurfaceEnv>): AppError {
  if (isAppError(err)) return err;
  const fault = databaseFault(err);
  if (fault) {
    deps.logger.warn({ req_id: c.get('requestId'), err, fault }, 'database fault');
    return databaseFaultError(fault, err);
  }
  deps.logger.error({ req_id: c.get('requestId'), err }, 'unhandled error');
  return new AppError('INTERNAL_ERROR');
}

/** Seconds a client is asked to wait: a restart takes a few, a busy pool frees within one. */
const RETRY_AFTER_SECONDS: Record<'unavailable' | 'busy', number> = { unavailable: 2, busy: 1 };

/** The answer to a database fault: 503 with Retry-After while it lasts, 409 for a row removed meanwhile. */
function databaseFaultError(fault: DatabaseFault, cause?: unknown): AppError {
  if (fault === 'removed_meanwhile') {
    return new AppError('CONFLICT', {
      message: 'A resource this request refers to was removed meanwhile.',
      meta: { reason: 'removed_meanwhile' },
      cause,
    });
  }
  const retryAfter = RETRY_AFTER_SECONDS[fault];
  return new AppError('SERVICE_UNAVAILABLE', {
    message:
      fault === 'busy' ? 'The database is busy; retry after the given delay.' : 'The database is unavailable; retry after the given delay.',
    meta: { reason: fault === 'busy' ? 'database_busy' : 'database_unavailable', retry_after: retryAfter },
    headers: { 'retry-after': String(retryAfter) },
    cause,
  });
}

const withHeaders = (res: Response, err: AppError) => {
  for (const [k, v] of Object.entries(err.headers)) res.headers.set(k, v);
  return res;
};

/** BAPI, FAPI and dashboard: `{errors:[{code, message, meta}], trace_id}`. */
export const jsonProtocol = (media: readonly BodyMedia[] = ['json']): Protocol => ({
  name: 'json',
  media,
  contentType: 'application/json; charset=utf-8',
  renderError: (err, c) => withHeaders(c.json({ errors: err.entries(), trace_id: c.get('requestId') }, err.status as 400), err),
});

const OAUTH_ERRORS: Partial<Record<ErrorCode, { error: string; status?: number }>> = {
  MALFORMED_REQUEST: { error: 'invalid_request', status: 400 },
  VALIDATION_FAILED: { error: 'invalid_request', status: 400 },
  UNSUPPORTED_MEDIA_TYPE: { error: 'invalid_request', status: 400 },
  PAYLOAD_TOO_LARGE: { error: 'invalid_request' },
  UNAUTHENTICATED: { error: 'invalid_token' },
  INVALID_KEY: { error: 'invalid_client' },
  TOKEN_INVALID: { error: 'invalid_token' },
  TOKEN_EXPIRED: { error: 'invalid_token' },
  TOKEN_UNKNOWN_KEY: { error: 'invalid_token' },
  TOKEN_WRONG_INSTANCE: { error: 'invalid_token' },
  SCOPE_MISSING: { error: 'insufficient_scope' },
  FORBIDDEN: { error: 'access_denied' },
  NOT_FOUND: { error: 'not_found' },
  METHOD_NOT_ALLOWED: { error: 'invalid_request' },
  RATE_LIMITED: { error: 'slow_down' },
  TOO_MANY_ATTEMPTS: { error: 'slow_down' },
  INTERNAL_ERROR: { error: 'server_error' },
  SERVICE_UNAVAILABLE: { error: 'temporarily_unavailable' },
};

const quoted = (s: string) => s.replace(/["\\]/g, "'");

/** RFC 6749 §4.1.2.1 / §5.2: an error_description is printable ASCII without `"` and `\\` (typographic quotes become `'`). */
export const oauthDescription = (s: string) =>
  s
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201C\u201D"\\]/g, "'")
    .replace(/[^\x20-\x7E]/g, '');

/**
 * OAuth 2.0 / OIDC (RFC 6749 §5.2, RFC 6750 §3): `{error, error_description}`, never
 * cached. A domain error may name its OAuth code in `meta.oauth_error`. Bearer failures
 * (401, and 403 insufficient_scope) carry `WWW-Authenticate: Bearer …`; a failed client
 * authentication with HTTP Basic answers `WWW-Authenticate: Basic`.
 */
export const oauthProtocol: Protocol = {
  name: 'oauth',
  media: ['form', 'json'],
  strictForm: true,
  contentType: 'application/json; charset=utf-8',
  renderError: (err, c) => {
    const mapped = OAUTH_ERRORS[err.code];
    const error = typeof err.meta.oauth_error === 'string' ? err.meta.oauth_error : (mapped?.error ?? err.code.toLowerCase());
    const status = mapped?.status ?? err.status;
    const res = c.json({ error, error_description: oauthDescription(err.message) }, status as 400);
    withHeaders(res, err);
    res.headers.set('cache-control', 'no-store');
    if (!res.headers.has('www-authenticate') && (status === 401 || error === 'insufficient_scope')) {
      const scheme = error === 'invalid_client' && /^Basic\s/i.test(c.req.header('authorization') ?? '') ? 'Basic' : 'Bearer';
      const realm = 'realm="latchkey"';
      res.headers.set(
        'www-authenticate',
        scheme === 'Basic' || !c.req.header('authorization')
          ? `${scheme} ${realm}`
          : `Bearer ${realm}, error="${error}", error_description="${quoted(oauthDescription(err.message))}"`,
      );
    }
    return res;
  },
};

const SCIM_TYPES: Partial<Record<ErrorCode, { scimType?: string; status?: number }>> = {
  MALFORMED_REQUEST: { scimType: 'invalidSyntax', status: 400 },
  VALIDATION_FAILED: { scimType: 'invalidValue', status: 400 },
  UNSUPPORTED_MEDIA_TYPE: { scimType: 'invalidSyntax', status: 400 },
  CONFLICT: { scimType: 'uniqueness' },
  PAYLOAD_TOO_LARGE: { scimType: 'tooMany' },
};

export const SCIM_ERROR_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:Error';

/**
 * SCIM 2.0 (RFC 7644 §3.12): the Error message schema with `status` as a string and
 * `scimType` where the RFC names one (a domain error may give `meta.scim_type`).
 */
export const scimProtocol: Protocol = {
  name: 'scim',
  media: ['scim', 'json'],
  contentType: 'application/scim+json; charset=utf-8',
  renderError: (err) => {
    const mapped = SCIM_TYPES[err.code];
    const status = mapped?.status ?? err.status;
    const scimType = typeof err.meta.scim_type === 'string' ? err.meta.scim_type : mapped?.scimType;
    const body = { schemas: [SCIM_ERROR_SCHEMA], status: String(status), ...(scimType ? { scimType } : {}), detail: err.message };
    const res = new Response(JSON.stringify(body), { status, headers: { 'content-type': scimProtocol.contentType } });
    return withHeaders(res, err);
  },
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch]!);

/** A minimal error page for browser-facing form posts (LTI launches, SSO callbacks). */
export function errorPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(title)}</title></head><body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></main></body></html>`;
}

/** Form posts in, HTML pages and redirects out (LTI, SSO callbacks); errors are an HTML page. */
export const htmlProtocol: Protocol = {
  name: 'html',
  media: ['form', 'json'],
  strictForm: true,
  contentType: 'application/json; charset=utf-8',
  renderError: (err, c) => {
    const res = c.html(
      errorPage('Sign-in could not be completed', `${err.message} (${err.code}, ${c.get('requestId')})`),
      err.status as 400,
    );
    return withHeaders(res, err);
  },
};
