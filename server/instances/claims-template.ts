import { z } from 'zod';

/**
 * The instance's session token template (`session_token_claims`): extra claims every session
 * JWT carries, as Clerk's "customize session token". A JSON object whose string values may
 * be shortcodes: a whole string `{{user.public_metadata.plan}}` is replaced by the value (any
 * JSON type, null when absent); shortcodes inside a longer string are interpolated as text.
 * `{{org.…}}` and `{{org_membership.…}}` read the session's active organization and the
 * user's membership of it (null without one), as Clerk's do.
 * Built-in claims are never overridden, and a template cannot name them.
 */
const SHORTCODE_FIELDS = {
  user: [
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
  ],
  org: ['id', 'name', 'slug', 'image_url', 'has_image', 'role', 'public_metadata'],
  org_membership: ['permissions', 'public_metadata'],
} as const satisfies Record<string, readonly string[]>;
type Scope = keyof typeof SHORTCODE_FIELDS;
const isShortcode = (scope: string, field: string) =>
  Object.hasOwn(SHORTCODE_FIELDS, scope) && (SHORTCODE_FIELDS[scope as Scope] as readonly string[]).includes(field);

const RESERVED_CLAIMS: ReadonlySet<string> = new Set([
  'iss',
  'sub',
  'aud',
  'exp',
  'nbf',
  'iat',
  'jti',
  'sid',
  'sv',
  'sts',
  'azp',
  'act',
  'org_id',
  'org_role',
  'org_slug',
  'org_permissions',
  'pla',
  'fea',
  'lti',
  'fva',
]);
/** Built-in claims of a session token that a template token does not carry, so its template may set them (as Clerk's). */
const TEMPLATE_SETTABLE = new Set([
  // The service the token is for.
  'aud',
  // The active organization, as `"org_id": "{{org.id}}"` (a template token carries no organization of its own).
  'org_id',
  'org_role',
  'org_slug',
  'org_permissions',
]);
/** What a named JWT template (server/sessions/jwt-templates.ts) cannot set: the session token's other built-in claims. */
export const JWT_TEMPLATE_RESERVED_CLAIMS: ReadonlySet<string> = new Set([...RESERVED_CLAIMS].filter((c) => !TEMPLATE_SETTABLE.has(c)));
const TEMPLATE_MAX_BYTES = 4096;
/** What the rendered claims may weigh (a session JWT travels in a cookie). */
export const RENDERED_MAX_BYTES = 4096;

/** `{{scope.field.path}}`: any scope is found (an unknown one is refused, not left as text). */
const SHORTCODE = /\{\{\s*([a-z_]+)\.([a-z_]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;
const WHOLE = /^\{\{\s*([a-z_]+)\.([a-z_]+)((?:\.[A-Za-z0-9_-]+)*)\s*\}\}$/;

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

/** The session's active organization and the user's membership of it, as `{{org.…}}` and `{{org_membership.…}}` read them. */
export interface ClaimsOrg {
  id: string;
  name: string;
  slug: string;
  imageUrl: string | null;
  publicMetadata: Record<string, unknown>;
  role: string;
  permissions: string[];
  membershipPublicMetadata: Record<string, unknown>;
}

/** Whom a template renders for: the user, and the session's active organization (null: none). */
export interface ClaimsSubject {
  user: ClaimsUser;
  org: ClaimsOrg | null;
}

function depth(v: unknown): number {
  if (v === null || typeof v !== 'object') return 0;
  return 1 + Math.max(0, ...Object.values(v as object).map(depth));
}

/** Every shortcode of the template, as written. */
function shortcodes(v: unknown): Array<{ scope: string; field: string; raw: string }> {
  if (typeof v === 'string') return [...v.matchAll(SHORTCODE)].map((m) => ({ scope: m[1]!, field: m[2]!, raw: m[0] }));
  if (v && typeof v === 'object') return Object.values(v).flatMap(shortcodes);
  return [];
}

/** Whether rendering the template reads the active organization (only then is it loaded). */
export const usesOrgShortcodes = (template: ClaimsTemplate) => shortcodes(template).some((s) => s.scope !== 'user');

const KNOWN_SHORTCODES = Object.entries(SHORTCODE_FIELDS)
  .map(([scope, fields]) => `{{${scope}.<${fields.join('|')}>}}`)
  .join(', ');

/** A template: a JSON object of at most 4 KiB, 3 levels, known shortcodes, none of the `reserved` claim names. */
export const claimsTemplateSchemaFor = (reserved: ReadonlySet<string>) =>
  z.record(z.string().min(1).max(64), z.unknown()).superRefine((v, ctx) => {
    if (JSON.stringify(v).length > TEMPLATE_MAX_BYTES) {
      ctx.addIssue({
        code: 'custom',
        message: `the template must be at most ${TEMPLATE_MAX_BYTES} bytes`,
        params: { reason: 'too_large' },
      });
      return;
    }
    if (depth(v) > 3) ctx.addIssue({ code: 'custom', message: 'the template nests at most 3 levels', params: { reason: 'too_deep' } });
    const taken = Object.keys(v).filter((k) => reserved.has(k));
    if (taken.length)
      ctx.addIssue({
        code: 'custom',
        message: `${taken.join(', ')} cannot be set: built-in claims`,
        path: [taken[0]!],
        params: { reason: 'reserved_claim' },
      });
    const unknown = shortcodes(v).find((s) => !isShortcode(s.scope, s.field));
    if (unknown)
      ctx.addIssue({
        code: 'custom',
        message: `unknown shortcode ${unknown.raw}; use ${KNOWN_SHORTCODES}`,
        params: { reason: 'unknown_shortcode' },
      });
  });
/** The session token template (`session_token_claims`). */
export const claimsTemplateSchema = claimsTemplateSchemaFor(RESERVED_CLAIMS);
export type ClaimsTemplate = z.output<typeof claimsTemplateSchema>;

function userValue(u: ClaimsUser, field: string): unknown {
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

function orgValue(o: ClaimsOrg, scope: string, field: string): unknown {
  switch (`${scope}.${field}`) {
    case 'org.id':
      return o.id;
    case 'org.name':
      return o.name;
    case 'org.slug':
      return o.slug;
    case 'org.image_url':
      return o.imageUrl;
    case 'org.has_image':
      return o.imageUrl !== null;
    case 'org.role':
      return o.role;
    case 'org.public_metadata':
      return o.publicMetadata;
    case 'org_membership.permissions':
      return o.permissions;
    case 'org_membership.public_metadata':
      return o.membershipPublicMetadata;
    default:
      return null;
  }
}

function lookup(subject: ClaimsSubject, scope: string, field: string, path: string): unknown {
  let v = scope === 'user' ? userValue(subject.user, field) : subject.org ? orgValue(subject.org, scope, field) : null;
  for (const key of path.split('.').filter(Boolean)) {
    v = v && typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : null;
  }
  return v ?? null;
}

function render(v: unknown, subject: ClaimsSubject): unknown {
  if (typeof v === 'string') {
    const whole = WHOLE.exec(v);
    if (whole) return lookup(subject, whole[1]!, whole[2]!, whole[3]!);
    return v.replace(SHORTCODE, (_m, scope: string, field: string, path: string) => {
      const value = lookup(subject, scope, field, path);
      return value === null ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value);
    });
  }
  if (Array.isArray(v)) return v.map((x) => render(x, subject));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, render(x, subject)]));
  return v;
}

/**
 * The template's claims for a user (and the session's active organization), or `null` when
 * they would weigh more than RENDERED_MAX_BYTES (large metadata): the token then goes without
 * them rather than fail.
 */
export function renderClaims(
  template: ClaimsTemplate,
  subject: ClaimsSubject,
  reserved: ReadonlySet<string> = RESERVED_CLAIMS,
): Record<string, unknown> | null {
  const claims = Object.fromEntries(
    Object.entries(template)
      .filter(([k]) => !reserved.has(k))
      .map(([k, v]) => [k, render(v, subject)]),
  );
  return JSON.stringify(claims).length > RENDERED_MAX_BYTES ? null : claims;
}
