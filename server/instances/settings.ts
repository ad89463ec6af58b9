import { z } from 'zod';
import { localeInput, normalizeLocale } from './locales';
import { customDomainInput } from './custom-domain';
import { claimsTemplateSchema } from './claims-template';
import { brandingSettingsSchema, DEFAULT_BRANDING } from './branding-settings';
import { DEFAULT_PASSWORD_POLICY, DEFAULT_SIGN_IN_METHODS, passwordPolicySchema, signInMethodsSchema } from './password-rules';
import { attackProtectionSchema, DEFAULT_ATTACK_PROTECTION, DEFAULT_RISK_BASED_MFA, riskBasedMfaSchema } from './protection-settings';
import { httpUrl, isHttpUrl } from '../http/url';

/** Per-instance settings with their defaults; stored as JSON on the instance. */
export const instanceSettingsSchema = z.object({
  /** Maximum session lifetime (drives `expire_at`). */
  session_lifetime_seconds: z
    .number()
    .int()
    .min(300)
    .max(10 * 365 * 86400)
    .default(7 * 86400),
  /** Inactivity timeout (drives `abandon_at`); null disables it. */
  session_inactivity_timeout_seconds: z
    .number()
    .int()
    .min(300)
    .max(365 * 86400)
    .nullable()
    .default(null),
  /** Lifetime of session JWTs. */
  session_token_lifetime_seconds: z.number().int().min(30).max(3600).default(60),
  /** New sessions of users without a second factor start pending with the `setup_mfa` task. */
  mfa_required: z.boolean().default(false),
  /**
   * Sensitive account changes (deleting the account, adding or removing an identifier or a
   * factor, new backup codes, a password change without the current one) want the session's
   * factors proved within this many minutes (reverification). It can be made shorter or
   * longer, never turned off.
   */
  reverification_window_minutes: z.number().int().min(1).max(1440).default(10),
  /** Browser origins (scheme://host[:port]) allowed to call the FAPI with cookies, besides the fapi_url's own. */
  allowed_origins: z.array(z.string().max(2048)).max(100).default([]),
  /**
   * Where hosted pages may send the browser after sign-in, sign-up or sign-out
   * (`redirect_url`): absolute http(s) URLs; a URL is allowed when it has the origin of an
   * entry and its path starts with the entry's path (isAllowedRedirect). The fapi_url's
   * own origin is always allowed.
   */
  redirect_urls: z.array(z.string().max(2048)).max(100).default([]),
  /**
   * Who may sign up on FAPI: anyone (`public`), only allow-listed or invited (/v1/invitations)
   * email addresses (`restricted`), or only people invited from the waitlist (`waitlist`:
   * others join it, server/waitlist).
   */
  sign_up_mode: z.enum(['public', 'restricted', 'waitlist']).default('public'),
  /** Restricted mode: exact addresses (`ann@acme.com`) or whole domains (`acme.com`, `@acme.com`). */
  allowlist: z.array(z.string().min(1).max(320)).max(1000).default([]),
  /** A username is required at sign-up (it is always accepted when given). */
  username_required: z.boolean().default(false),
  /** First and last name are required at sign-up. */
  name_required: z.boolean().default(false),
  /** A password is required at sign-up; without it users sign in by email code. */
  password_required: z.boolean().default(true),
  /**
   * The language of emails, SMS and hosted pages when neither the user nor the request
   * names a supported one (then English). Also the locale an email template override
   * applies to when none is given.
   */
  default_locale: z
    .string()
    .refine((v) => normalizeLocale(v) === v, { message: 'must be a supported locale such as en, fr, de or fr-CA' })
    .default('en'),
  /** Organizations on the FAPI (BAPI always manages them). */
  organizations_enabled: z.boolean().default(true),
  /** Signed-in users may create organizations on the FAPI. */
  organization_creation_enabled: z.boolean().default(true),
  /** The role key new members get when none is given (invitations, domain enrollment, BAPI). */
  organization_default_role: z.string().min(1).max(64).default('org:member'),
  /** The role key the creator of an organization gets. */
  organization_creator_role: z.string().min(1).max(64).default('org:admin'),
  /** The membership cap new organizations start with; 0: no cap. */
  organization_max_allowed_memberships: z.number().int().min(0).max(100_000).default(0),
  /** The primary colour and support address the hosted pages and messages show (server/instances/branding.ts). */
  branding: brandingSettingsSchema.default(DEFAULT_BRANDING),
  /** Which first factors and identifiers sign-in accepts. */
  sign_in_methods: signInMethodsSchema.default(DEFAULT_SIGN_IN_METHODS),
  /** What a password chosen on the FAPI must be (sign-up, reset, change); the breach check is attack protection's. */
  password_policy: passwordPolicySchema.default(DEFAULT_PASSWORD_POLICY),
  /** Extra claims of every session JWT, with `{{user.…}}` shortcodes (server/instances/claims-template.ts). */
  session_token_claims: claimsTemplateSchema.default({}),
  /** Signed-in users may delete their own account (`DELETE {fapi_url}/v1/me`, the hosted profile). */
  delete_self_enabled: z.boolean().default(true),
  /** User lockout and breached-password checks (GET/PATCH /v1/attack_protection). */
  attack_protection: attackProtectionSchema.default(DEFAULT_ATTACK_PROTECTION),
  /** Step-up on sign-ins from new devices or networks (GET/PATCH /v1/risk_based_mfa). */
  risk_based_mfa: riskBasedMfaSchema.default(DEFAULT_RISK_BASED_MFA),
});

export type InstanceSettings = z.output<typeof instanceSettingsSchema>;

/** A stored setting that failed validation and was replaced by its default: its dotted path and why, never its value. */
export interface InvalidSetting {
  path: string;
  message: string;
}

const DEFAULT_SETTINGS = instanceSettingsSchema.parse({});

/**
 * The stored settings with defaults. A stored field that fails validation (a value written
 * before a bound tightened, a hand edit) falls back to its own default alone, down to the
 * nested field (`attack_protection.user_lockout.max_attempts`): every valid field is kept, so
 * one bad value never re-enables sign-in methods or resets the password policy and lockout.
 * `onInvalid` hears which fields were replaced.
 */
export function instanceSettings(stored: unknown, onInvalid?: (invalid: InvalidSetting[]) => void): InstanceSettings {
  const parsed = instanceSettingsSchema.safeParse(stored ?? {});
  if (parsed.success) return parsed.data;
  const invalid: InvalidSetting[] = [];
  const kept = salvage(instanceSettingsSchema, stored ?? {}, DEFAULT_SETTINGS, [], invalid) as InstanceSettings;
  onInvalid?.(invalid);
  return kept;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * `value` parsed by `schema`; when it fails and the schema is an object, each field is
 * salvaged on its own (its default, else the enclosing default's field, replacing a bad one)
 * and unknown fields of a strict object dropped. When the object as rebuilt still fails (a
 * rule across its fields, such as keeping one first factor on), or the schema is not an
 * object, the whole value falls back.
 */
function salvage(schema: z.ZodType, value: unknown, fallback: unknown, path: string[], invalid: InvalidSetting[]): unknown {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const report = (at: string[], message: string) => invalid.push({ path: at.join('.') || 'settings', message });
  const inner = schema instanceof z.ZodDefault ? (schema.unwrap() as z.ZodType) : schema;
  if (inner instanceof z.ZodObject && isRecord(value)) {
    const shape = inner.shape as Record<string, z.ZodType>;
    const base = isRecord(fallback) ? fallback : {};
    const rebuilt: Record<string, unknown> = {};
    for (const [key, field] of Object.entries(shape)) {
      const own = field instanceof z.ZodDefault ? field.parse(undefined) : base[key];
      rebuilt[key] = salvage(field, value[key], own, [...path, key], invalid);
    }
    for (const issue of parsed.error.issues) {
      if (issue.code === 'unrecognized_keys' && issue.path.length === 0)
        for (const key of issue.keys) report([...path, key], 'unknown field, dropped');
    }
    const whole = inner.safeParse(rebuilt);
    if (whole.success) return whole.data;
    report(path, whole.error.issues[0]!.message);
    return fallback;
  }
  report(path, value === undefined ? 'missing' : parsed.error.issues[0]!.message);
  return fallback;
}

/**
 * Whether hosted pages may redirect to `url`: the fapi_url's origin, or an entry of
 * `redirect_urls` with the same origin whose path is a prefix of the URL's path.
 */
export function isAllowedRedirect(settings: Pick<InstanceSettings, 'redirect_urls'>, fapiUrl: string, url: string): boolean {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return false;
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  if (target.origin === new URL(fapiUrl).origin) return true;
  return settings.redirect_urls.some((entry) => {
    try {
      const allowed = new URL(entry);
      return allowed.origin === target.origin && isUnderPath(target.pathname, allowed.pathname);
    } catch {
      return false;
    }
  });
}

/** `/after` covers `/after` and `/after/…`, never `/afterwards`. */
function isUnderPath(pathname: string, base: string): boolean {
  if (base === '/' || pathname === base) return true;
  const prefix = base.endsWith('/') ? base : `${base}/`;
  return pathname.startsWith(prefix);
}

const isOrigin = (v: string) => httpUrl(v)?.origin === v.replace(/\/$/, '');

type Shape = typeof instanceSettingsSchema.shape;
/** The field schemas without their defaults, so an absent field stays absent in a patch. */
const field = <K extends keyof Shape>(k: K) => instanceSettingsSchema.shape[k].unwrap().optional();

/**
 * A partial settings change (PATCH): each field validated by the settings schema, origins
 * as `scheme://host[:port]`, redirect URLs absolute http(s). Unknown fields are refused.
 */
export const settingsPatchSchema = z.strictObject({
  sign_up_mode: field('sign_up_mode'),
  allowlist: field('allowlist'),
  session_lifetime_seconds: field('session_lifetime_seconds'),
  session_inactivity_timeout_seconds: field('session_inactivity_timeout_seconds'),
  session_token_lifetime_seconds: field('session_token_lifetime_seconds'),
  mfa_required: field('mfa_required'),
  reverification_window_minutes: field('reverification_window_minutes'),
  allowed_origins: z
    .array(
      z
        .string()
        .max(2048)
        .refine(isOrigin, { message: 'must be an origin such as https://app.example.com', params: { reason: 'invalid_origin' } }),
    )
    .max(100)
    .optional(),
  redirect_urls: z
    .array(
      z
        .string()
        .max(2048)
        .refine((v) => isHttpUrl(v), { message: 'must be an absolute http(s) URL', params: { reason: 'invalid_url' } }),
    )
    .max(100)
    .optional(),
  username_required: field('username_required'),
  name_required: field('name_required'),
  password_required: field('password_required'),
  default_locale: localeInput.optional(),
  organizations_enabled: field('organizations_enabled'),
  organization_creation_enabled: field('organization_creation_enabled'),
  organization_default_role: field('organization_default_role'),
  organization_creator_role: field('organization_creator_role'),
  organization_max_allowed_memberships: field('organization_max_allowed_memberships'),
  delete_self_enabled: field('delete_self_enabled'),
  session_token_claims: claimsTemplateSchema.optional(),
  password_policy: passwordPolicySchema.optional(),
  sign_in_methods: signInMethodsSchema.optional(),
  /** Merged into the stored branding: only the fields given change. */
  branding: brandingSettingsSchema.partial().optional(),
  /** Stored on the instance, not in its settings (custom-domain.ts); null clears it. */
  custom_domain: customDomainInput.optional(),
});
export type SettingsPatch = z.output<typeof settingsPatchSchema>;
