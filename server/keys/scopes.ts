/**
 * Scopes are `resource:read` / `resource:write`; write implies read of the same
 * resource, and `*` grants everything.
 */
export const SCOPE_RESOURCES = [
  'users',
  'sessions',
  'impersonation',
  'sign_in_tokens',
  'events',
  'webhooks',
  'organizations',
  'roles',
  'rate_limit',
  'audit_logs',
  'keys',
  'jwks',
  'api_keys',
  'scim_tokens',
  'network_acls',
  'attack_protection',
  'risk_based_mfa',
  'waitlist',
  'billing',
  'sso',
  'oauth_applications',
  'lti',
  'emails',
  'sms',
  'sso_connections',
  'invitations',
  'allowlist',
  'jwt_templates',
  'instance',
] as const;

type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

const SCOPE_RE = new RegExp(`^(${SCOPE_RESOURCES.join('|')}):(read|write)$`);

export const isScope = (s: string): s is Scope => SCOPE_RE.test(s);

export function grants(held: readonly string[], required: Scope): boolean {
  if (held.includes('*') || held.includes(required)) return true;
  const [resource, action] = required.split(':');
  return action === 'read' && held.includes(`${resource}:write`);
}

/** Parses `a:read,b:write` or `*`; returns the list or the first bad entry. */
export function parseScopes(input: string | string[]): { scopes: string[] } | { invalid: string } {
  const list = (Array.isArray(input) ? input : input.split(',')).map((s) => s.trim()).filter(Boolean);
  if (list.length === 0) return { invalid: '' };
  for (const s of list) if (s !== '*' && !isScope(s)) return { invalid: s };
  return { scopes: list.includes('*') ? ['*'] : [...new Set(list)].sort() };
}
