/** Why a session token was refused: one class per reason, all `instanceof TokenVerificationError`. */
export type TokenErrorReason =
  'malformed' | 'expired' | 'not_yet_valid' | 'wrong_issuer' | 'wrong_party' | 'unknown_key' | 'signature' | 'jwks_unavailable';

export class TokenVerificationError extends Error {
  constructor(
    readonly reason: TokenErrorReason,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}
export class TokenMalformedError extends TokenVerificationError {
  constructor(message = 'The token is not a well-formed RS256 JWT.') {
    super('malformed', message);
  }
}
export class TokenExpiredError extends TokenVerificationError {
  constructor(readonly expiredAt: number) {
    super('expired', 'The token has expired.');
  }
}
export class TokenNotYetValidError extends TokenVerificationError {
  constructor(readonly notBefore: number) {
    super('not_yet_valid', 'The token is not valid yet.');
  }
}
export class TokenIssuerError extends TokenVerificationError {
  constructor(readonly issuer: string | undefined) {
    super('wrong_issuer', 'The token was issued by another instance.');
  }
}
export class TokenAuthorizedPartyError extends TokenVerificationError {
  constructor(readonly authorizedParty: string | undefined) {
    super('wrong_party', 'The token was issued to an origin that is not an authorized party.');
  }
}
export class TokenUnknownKeyError extends TokenVerificationError {
  constructor(readonly kid: string | undefined) {
    super('unknown_key', 'The token is signed with a key the instance does not publish.');
  }
}
export class TokenSignatureError extends TokenVerificationError {
  constructor() {
    super('signature', 'The token signature is invalid.');
  }
}
export class JwksUnavailableError extends TokenVerificationError {
  constructor(readonly cause?: unknown) {
    super('jwks_unavailable', 'The key set could not be fetched and no usable copy is cached.');
  }
}

/** One entry of the API's error body `{errors:[{code,message,meta}], trace_id}`. */
export interface ApiErrorEntry {
  code: string;
  message: string;
  meta?: Record<string, unknown>;
}

/** A non-2xx answer from the backend API, after retries. */
export class LatchkeyApiError extends Error {
  readonly code: string;
  readonly meta: Record<string, unknown>;
  constructor(
    readonly status: number,
    readonly errors: ApiErrorEntry[],
    readonly traceId: string | undefined,
    readonly retryAfter?: number,
  ) {
    const first = errors[0];
    super(first ? `${first.code}: ${first.message}` : `HTTP ${status}`);
    this.name = 'LatchkeyApiError';
    this.code = first?.code ?? `HTTP_${status}`;
    this.meta = first?.meta ?? {};
  }
}

/** The request never got an answer (network failure, timeout), after retries. */
export class LatchkeyNetworkError extends Error {
  constructor(readonly cause: unknown) {
    super(`Network error: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'LatchkeyNetworkError';
  }
}
