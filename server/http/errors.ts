import type { REASONS as HTTP_REASONS } from './reasons';

/**
 * The one registry of error codes. A code is never renamed; `expose` says whether a
 * caller-supplied message may reach the client (otherwise the default message is used).
 */
export const ERROR_CODES = {
  MALFORMED_REQUEST: { status: 400, message: 'The request could not be parsed.', expose: true },
  UNAUTHENTICATED: { status: 401, message: 'Authentication is required.', expose: true },
  INVALID_KEY: { status: 401, message: 'The key is invalid or has been revoked.', expose: true },
  SCOPE_MISSING: { status: 403, message: 'The key lacks the scope this route requires.', expose: true },
  FORBIDDEN: { status: 403, message: 'This action is not allowed.', expose: true },
  IP_DENIED: { status: 403, message: 'Requests from this address are not allowed.', expose: true },
  ORIGIN_NOT_ALLOWED: { status: 403, message: 'Requests from this origin are not allowed.', expose: true },
  NOT_FOUND: { status: 404, message: 'The resource was not found.', expose: true },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This method is not allowed on this path.', expose: true },
  REQUEST_TIMEOUT: { status: 408, message: 'The request was not received in time.', expose: true },
  CONFLICT: { status: 409, message: 'The request conflicts with the current state.', expose: true },
  IDEMPOTENCY_KEY_IN_USE: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed.',
    expose: true,
  },
  /** If-Match named a version the resource no longer has (SCIM). */
  PRECONDITION_FAILED: { status: 412, message: 'The resource changed since the version named in If-Match.', expose: true },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is too large.', expose: true },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request content type is not supported.', expose: true },
  VALIDATION_FAILED: { status: 422, message: 'The request is invalid.', expose: true },
  IDEMPOTENCY_KEY_MISMATCH: {
    status: 422,
    message: 'This Idempotency-Key was already used with a different request.',
    expose: true,
  },
  REQUEST_HEADER_FIELDS_TOO_LARGE: {
    status: 431,
    message: 'The request line and headers are too large.',
    expose: true,
  },
  TOO_MANY_ATTEMPTS: { status: 429, message: 'Too many attempts. Try again later.', expose: true },
  RATE_LIMITED: { status: 429, message: 'Too many requests. Retry after the given delay.', expose: true },
  USER_BANNED: { status: 403, message: 'This user is banned.', expose: true },
  /** A sensitive action wants the session's factors proved recently: `meta.session_verification` says which level, within how many minutes (server/auth/reverification.ts). */
  REVERIFICATION_REQUIRED: { status: 403, message: 'Verify your identity again to do this.', expose: true },
  USER_LOCKED: { status: 403, message: 'This account is locked after too many failed attempts; try again later.', expose: true },
  REFRESH_TOKEN_INVALID: { status: 401, message: 'The refresh token is not valid for this session.', expose: true },
  REFRESH_TOKEN_REUSED: {
    status: 401,
    message: 'This refresh token was already used; the session has been revoked.',
    expose: true,
  },
  SESSION_ENDED: { status: 401, message: 'The session has ended.', expose: true },
  SESSION_REVOKED: { status: 401, message: 'The session has been revoked.', expose: true },
  SESSION_REMOVED: { status: 401, message: 'The session has been removed.', expose: true },
  SESSION_EXPIRED: { status: 401, message: 'The session has expired.', expose: true },
  SESSION_ABANDONED: { status: 401, message: 'The session was abandoned after inactivity.', expose: true },
  TOKEN_INVALID: { status: 401, message: 'The token is malformed or its signature is invalid.', expose: true },
  TOKEN_EXPIRED: { status: 401, message: 'The token has expired.', expose: true },
  TOKEN_UNKNOWN_KEY: { status: 401, message: 'The token was signed by a key this instance does not publish.', expose: true },
  TOKEN_WRONG_INSTANCE: { status: 401, message: 'The token was issued by another instance.', expose: true },
  TICKET_INVALID: { status: 422, message: 'The ticket is invalid, expired or already used.', expose: true },
  CREDENTIALS_INVALID: { status: 422, message: 'The identifier or password is incorrect.', expose: true },
  CODE_INCORRECT: { status: 422, message: 'The code is incorrect.', expose: true },
  /** A passkey's answer did not verify; `meta.reason` says why (server/passkeys/reasons.ts). */
  PASSKEY_INVALID: { status: 422, message: 'The passkey could not be verified.', expose: true },
  CODE_EXPIRED: { status: 422, message: 'The code has expired or was replaced; request a new one.', expose: true },
  SIGN_UP_NOT_ALLOWED: { status: 403, message: 'Sign-up is not open to this email address.', expose: true },
  API_KEY_INVALID: { status: 404, message: 'The API key is unknown, revoked or expired.', expose: true },
  PUBLISHABLE_KEY_INVALID: { status: 400, message: 'The publishable key is missing, malformed or not this instance’s.', expose: true },
  /** An LTI login initiation or launch was refused; `meta.reason` names the check (server/lti/reasons.ts). */
  LTI_LAUNCH_INVALID: { status: 400, message: 'The LTI launch could not be verified.', expose: true },
  INTERNAL_ERROR: { status: 500, message: 'Something went wrong on our side.', expose: false },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not ready.', expose: true },
} as const satisfies Record<string, { status: number; message: string; expose: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * Each domain's `meta.reason`s, keyed by its directory: every `<domain>/reasons.ts` adds its own
 * entry to this interface, and server/reasons.ts lists them all for the docs and tests.
 */
export interface ReasonsByDomain {
  http: typeof HTTP_REASONS;
}

/** A `meta.reason` the server may answer: `AppError` and `validationError` take nothing else. */
export type Reason = { [D in keyof ReasonsByDomain]: ReasonsByDomain[D][keyof ReasonsByDomain[D]] }[keyof ReasonsByDomain];

/** `reason` only from the registry, so a misspelt one does not compile. */
export type ErrorMeta = { reason?: Reason } & Record<string, unknown>;

export interface ErrorEntry {
  code: ErrorCode;
  message: string;
  long_message?: string;
  meta: ErrorMeta;
}

interface AppErrorOptions {
  message?: string;
  longMessage?: string;
  meta?: ErrorMeta;
  /** Further entries of the same request (one per validation problem). */
  more?: ErrorEntry[];
  headers?: Record<string, string>;
  /** Logged, never sent. */
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly meta: ErrorMeta;
  readonly longMessage?: string;
  readonly more: ErrorEntry[];
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, opts: AppErrorOptions = {}) {
    const def = ERROR_CODES[code];
    super(def.expose && opts.message ? opts.message : def.message, { cause: opts.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = def.status;
    this.meta = opts.meta ?? {};
    this.longMessage = def.expose ? opts.longMessage : undefined;
    this.more = opts.more ?? [];
    this.headers = opts.headers ?? {};
  }

  entries(): ErrorEntry[] {
    const first: ErrorEntry = { code: this.code, message: this.message, meta: this.meta };
    if (this.longMessage) first.long_message = this.longMessage;
    return [first, ...this.more];
  }
}

export const isAppError = (e: unknown): e is AppError => e instanceof AppError;

/**
 * Runs checks that each may throw a 422 and throws them as one answer (the first, with the
 * others as further entries), so a form can show every field's problem at once. Other
 * errors stop at once, as thrown.
 */
export async function allValidationProblems(checks: Array<() => unknown>): Promise<void> {
  const problems: AppError[] = [];
  for (const check of checks) {
    try {
      await check();
    } catch (e) {
      if (!(isAppError(e) && e.code === 'VALIDATION_FAILED')) throw e;
      problems.push(e);
    }
  }
  const [first, ...more] = problems;
  if (first)
    throw new AppError('VALIDATION_FAILED', {
      message: first.message,
      meta: first.meta,
      more: [...first.more, ...more.flatMap((p) => p.entries())],
    });
}

export function validationError(param: string, reason: Reason, message?: string): AppError {
  return new AppError('VALIDATION_FAILED', {
    message: message ?? `${param} ${reason}`,
    meta: { param, reason },
  });
}

export const notFound = (what = 'resource') => new AppError('NOT_FOUND', { message: `No ${what} was found with that id.` });
