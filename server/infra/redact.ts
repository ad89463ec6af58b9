/**
 * Anything shaped like a credential is replaced before a log line is written, so a
 * secret can't reach the logs even through an error message or a stack.
 */
const SECRET_PATTERN =
  /\b(sk|pk|rt|uat|ak|scim|whsec|sit|act|cli)_(?:(?:test|live)_)?[A-Za-z0-9_\-$=]{8,}|\bBearer\s+\S+|\beyJ[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;

export function scrub(text: string): string {
  return text.replace(SECRET_PATTERN, (m) => {
    if (m.startsWith('Bearer')) return 'Bearer [REDACTED]';
    const prefix = /^[a-z]+_(?:(?:test|live)_)?/.exec(m)?.[0] ?? '';
    return `${prefix}[REDACTED]`;
  });
}

export function scrubDeep(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrub(value);
  if (value === null || typeof value !== 'object') return value;
  // Returned as is, a deeper object would be written unscrubbed.
  if (depth > 6) return '[Truncated]';
  // An Error's name, message and stack are not enumerable: copying its entries would log `{}`.
  if (isError(value)) return serializeError(value, depth);
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SENSITIVE_FIELD.test(k) ? '[REDACTED]' : scrubDeep(v, depth + 1);
  }
  return out;
}

function isError(value: object): value is Error {
  return value instanceof Error || Object.prototype.toString.call(value) === '[object Error]';
}

/** Fields an error may carry that hold query values rather than a description (postgres.js in debug mode). */
const UNLOGGED_ERROR_FIELD = new Set(['parameters', 'args']);

/**
 * An Error as a plain object: type, message, stack, code and cause (recursively), plus
 * its other own fields (postgres' detail and constraint, an AppError's status and meta),
 * every string scrubbed of credentials.
 */
function serializeError(err: Error, depth = 0): Record<string, unknown> {
  const e = err as Error & { code?: unknown; errors?: unknown };
  const out: Record<string, unknown> = {
    type: typeof e.name === 'string' && e.name ? e.name : (e.constructor?.name ?? 'Error'),
    message: scrub(String(e.message)),
  };
  // An error's `code` is its kind (ECONNREFUSED, 23505, NOT_FOUND), not an OAuth code: kept, still scrubbed.
  if (typeof e.code === 'string' || typeof e.code === 'number') out.code = scrubDeep(e.code, depth + 1);
  if (typeof e.stack === 'string') out.stack = scrub(e.stack);
  for (const [k, v] of Object.entries(e)) {
    if (k in out || k === 'cause' || k === 'errors' || UNLOGGED_ERROR_FIELD.has(k)) continue;
    out[k] = SENSITIVE_FIELD.test(k) ? '[REDACTED]' : scrubDeep(v, depth + 1);
  }
  if (e.cause !== undefined) out.cause = scrubDeep(e.cause, depth + 1);
  if (Array.isArray(e.errors)) out.errors = scrubDeep(e.errors, depth + 1);
  return out;
}

const SENSITIVE_FIELD =
  /^(authorization|cookie|set-cookie|password|password_digest|secret|token|code|refresh_token|jwt|x-publishable-key)$/i;
