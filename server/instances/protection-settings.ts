import { z } from 'zod';
import { isHttpUrl } from '../http/url';

/**
 * Attack protection and risk-based MFA settings, stored on the instance's settings (so
 * every node reads them through the instance cache and sees a change within 5 seconds).
 * Lockout counts failed first- and second-factor attempts per account.
 */
export const LOCKOUT_BOUNDS = {
  max_attempts: { min: 3, max: 100, default: 10 },
  window_minutes: { min: 1, max: 24 * 60, default: 60 },
  lockout_minutes: { min: 1, max: 7 * 24 * 60, default: 60 },
} as const;

const bounded = (b: { min: number; max: number; default: number }) => z.number().int().min(b.min).max(b.max);

const userLockoutSchema = z.object({
  enabled: z.boolean().default(true),
  /** Failed attempts within the window that lock the account. */
  max_attempts: bounded(LOCKOUT_BOUNDS.max_attempts).default(LOCKOUT_BOUNDS.max_attempts.default),
  window_minutes: bounded(LOCKOUT_BOUNDS.window_minutes).default(LOCKOUT_BOUNDS.window_minutes.default),
  /** How long a lockout lasts (an operator may end it early: POST /v1/users/:id/unlock). */
  lockout_minutes: bounded(LOCKOUT_BOUNDS.lockout_minutes).default(LOCKOUT_BOUNDS.lockout_minutes.default),
});

const breachedPasswordsSchema = z.object({
  enabled: z.boolean().default(true),
  /** A k-anonymity range API (HIBP-style `GET {url}/{first 5 hex of SHA-1}`), asked besides the offline dictionary. */
  range_api_url: z.string().max(2048).nullable().default(null),
});

export const attackProtectionSchema = z.object({
  user_lockout: userLockoutSchema.default(userLockoutSchema.parse({})),
  breached_passwords: breachedPasswordsSchema.default(breachedPasswordsSchema.parse({})),
});
export type AttackProtection = z.output<typeof attackProtectionSchema>;

export const riskBasedMfaSchema = z.object({
  /** A password sign-in from a new device, network (or country, with GeoIP) needs a second factor. */
  enabled: z.boolean().default(false),
});
export type RiskBasedMfa = z.output<typeof riskBasedMfaSchema>;

export const DEFAULT_ATTACK_PROTECTION = attackProtectionSchema.parse({});
export const DEFAULT_RISK_BASED_MFA = riskBasedMfaSchema.parse({});

/** PATCH /v1/attack_protection: any subset of fields; bounds as above. */
export const attackProtectionPatch = z.strictObject({
  user_lockout: z
    .strictObject({
      enabled: z.boolean().optional(),
      max_attempts: bounded(LOCKOUT_BOUNDS.max_attempts).optional(),
      window_minutes: bounded(LOCKOUT_BOUNDS.window_minutes).optional(),
      lockout_minutes: bounded(LOCKOUT_BOUNDS.lockout_minutes).optional(),
    })
    .optional(),
  breached_passwords: z
    .strictObject({
      enabled: z.boolean().optional(),
      range_api_url: z
        .string()
        .max(2048)
        .refine((v) => isHttpUrl(v, { bare: true }), {
          message: 'must be an absolute http(s) URL without credentials, query or fragment',
          params: { reason: 'invalid_url' },
        })
        .meta({
          description: 'The range API’s base URL: http(s), no credentials, query or fragment (422 invalid_url otherwise); null: none.',
        })
        .nullable()
        .optional(),
    })
    .optional(),
});
export type AttackProtectionPatch = z.output<typeof attackProtectionPatch>;

export const riskBasedMfaPatch = z.strictObject({ enabled: z.boolean().optional() });
export type RiskBasedMfaPatch = z.output<typeof riskBasedMfaPatch>;

export const attackProtectionViewSchema = z
  .object({
    object: z.literal('attack_protection'),
    user_lockout: z.object({
      enabled: z.boolean(),
      max_attempts: z.number().int(),
      window_minutes: z.number().int(),
      lockout_minutes: z.number().int(),
    }),
    breached_passwords: z.object({ enabled: z.boolean(), range_api_url: z.string().nullable() }),
  })
  .meta({ id: 'AttackProtection' });

export const riskBasedMfaViewSchema = z
  .object({
    object: z.literal('risk_based_mfa'),
    enabled: z.boolean(),
    /** Whether a GeoIP lookup is configured, so a new country counts too. */
    geoip_enabled: z.boolean(),
  })
  .meta({ id: 'RiskBasedMfa' });
