import { z } from 'zod';

/**
 * The instance's session token template (`session_token_claims`): extra claims every session
 * JWT carries, as Clerk's "customize session token". A JSON object whose string values may
 * be shortcodes: a whole string `{{user.public_metadata.plan}}` is replaced by the value (any
 * JSON type, null when absent); shortcodes inside a longer string are interpolated as text.
 * Built-in claims are never overridden, and a template cannot name them.
 */
export const SHORTCODE_FIELDS = [
  'id',
  'external_id',
  'first_name',
  'last_name',
  'full_name',
  'username',
  'primary_email_address',
  'email_verified',
  'public_metadata',
  'unsafe_metadata',
  'created_at',
] as const;

export const RESERVED_CLAIMS: ReadonlySet<string> = new Set(['iss', 'sub', 'aud', 'exp', 'nbf', 'iat', 'jti', 'sid', 'sv', 'sts', 'azp', 'act', 'org_id', 'org_role', 'org_slug', 'org_permissions', 'pla', 'fea', 'lti']);
/**
 * What a named JWT template (server/sessions/jwt-templates.ts) cannot set: the session token's
 * built-in claims, but `aud`, which Clerk's templates set for the service the token is for.
 */
export const JWT_TEMPLATE_RESERVED_CLAIMS: ReadonlySet<string> = new Set([...RESERVED_CLAIMS].filter((c) => c !== 'aud'));
export const TEMPLATE_MAX_BYTES = 4096;
/** What the rendered claims may weigh (a session JWT travels in a cookie). */
export const RENDERED_MAX_BYTES = 4096;

const SHORTCODE = /\{\{\s*user\.([a-z_]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*user\.([a-z_]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}$/;

export interface ClaimsUser {
  id: string;
  externalId: string | null;
  firstName: string | null;
  lastName: string | null;
  username: string | null;
  primaryEmail: string | null;
  emailVerified: boolean;
  publicMetadata: Record<string, unknown>;
  unsafeMetadata: Record<string, unknown>;
  createdAt: number;
}

function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(v as object).map(depth));
}

/** Every shortcode of the template, as written. */
function shortcodes(v: unknown): Array<{ field: string; raw: string }> {
  if (typeof v === 'string') return [...v.matchAll(SHORTCODE)].map((m) => ({ field: m[1]!, raw: m[0] }));
  if (v && typeof v === 'object') return Object.values(v).flatMap(shortcodes);
  return [];
}

/** A template: a JSON object of at most 4 KiB, 3 levels, known shortcodes, none of the `reserved` claim names. */
export const claimsTemplateSchemaFor = (reserved: ReadonlySet<string>) => z.record(z.string().min(1).max(64), z.unknown()).superRefine((v, ctx) => {
  if (JSON.stringify(v).length > TEMPLATE_MAX_BYTES) {
    ctx.addIssue({ code: 'custom', message: `the template must be at most ${TEMPLATE_MAX_BYTES} bytes`, params: { reason: 'too_large' } });
    return;
  }
  if (depth(v) > 3) ctx.addIssue({ code: 'custom', message: 'the template nests at most 3 levels', params: { reason: 'too_deep' } });
  const taken = Object.keys(v).filter((k) => reserved.has(k));
  if (taken.length) ctx.addIssue({ code: 'custom', message: `${taken.join(', ')} cannot be set: built-in claims`, path: [taken[0]!], params: { reason: 'reserved_claim' } });
  const unknown = shortcodes(v).filter((s) => !(SHORTCODE_FIELDS as readonly string[]).includes(s.field));
  if (unknown.length) {
    ctx.addIssue({ code: 'custom', message: `unknown shortcode ${unknown[0]!.raw}; use {{user.<${SHORTCODE_FIELDS.join('|')}>}}`, params: { reason: 'unknown_shortcode' } });
  }
});
/** The session token template (`session_token_claims`). */
export const claimsTemplateSchema = claimsTemplateSchemaFor(RESERVED_CLAIMS);
export type ClaimsTemplate = z.output<typeof claimsTemplateSchema>;

function fieldValue(u: ClaimsUser, field: string): unknown {
  switch (field) {
    case 'id':
      return u.id;
    case 'external_id':
      return u.externalId;
    case 'first_name':
      return u.firstName;
    case 'last_name':
      return u.lastName;
    case 'full_name':
      return [u.firstName, u.lastName].filter(Boolean).join(' ') || null;
    case 'username':
      return u.username;
    case 'primary_email_address':
      return u.primaryEmail;
    case 'email_verified':
      return u.emailVerified;
    case 'public_metadata':
      return u.publicMetadata;
    case 'unsafe_metadata':
      return u.unsafeMetadata;
    case 'created_at':
      return Math.floor(u.createdAt / 1000);
    default:
      return null;
  }
}

function lookup(u: ClaimsUser, field: string, path: string): unknown {
  let v = fieldValue(u, field);
  for (const key of path.split('.').filter(Boolean)) {
    v = v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : null;
  }
  return v ?? null;
}

function render(v: unknown, u: ClaimsUser): unknown {
  if (typeof v === 'string') {
    const whole = WHOLE.exec(v);
    if (whole) return lookup(u, whole[1]!, whole[2]!);
    return v.replace(SHORTCODE, (_m, field: string, path: string) => {
      const value = lookup(u, field, path);
      return value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    });
  }
  if (Array.isArray(v)) return v.map((x) => render(x, u));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, render(x, u)]));
  return v;
}

/**
 * The template's claims for a user, or `null` when they would weigh more than
 * RENDERED_MAX_BYTES (large metadata): the token then goes without them rather than fail.
 */
export function renderClaims(template: ClaimsTemplate, user: ClaimsUser, reserved: ReadonlySet<string> = RESERVED_CLAIMS): Record<string, unknown> | null {
  const claims = Object.fromEntries(Object.entries(template).filter(([k]) => !reserved.has(k)).map(([k, v]) => [k, render(v, user)]));
  return JSON.stringify(claims).length > RENDERED_MAX_BYTES ? null : claims;
}
