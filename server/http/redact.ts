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
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubDeep(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    out[k] = SENSITIVE_FIELD.test(k) ? '[REDACTED]' : scrubDeep(v, depth + 1);
  }
  return out;
}

const SENSITIVE_FIELD = /^(authorization|cookie|set-cookie|password|password_digest|secret|token|code|refresh_token|jwt|x-publishable-key)$/i;
