import { z } from 'zod';

/** Per-instance settings with their defaults; stored as JSON on the instance. */
export const instanceSettingsSchema = z.object({
  /** Maximum session lifetime (drives `expire_at`). */
  session_lifetime_seconds: z.number().int().min(300).max(10 * 365 * 86400).default(7 * 86400),
  /** Inactivity timeout (drives `abandon_at`); null disables it. */
  session_inactivity_timeout_seconds: z.number().int().min(300).max(365 * 86400).nullable().default(null),
  /** Lifetime of session JWTs. */
  session_token_lifetime_seconds: z.number().int().min(30).max(3600).default(60),
  /** New sessions of users without a second factor start pending with the `setup_mfa` task. */
  mfa_required: z.boolean().default(false),
  /** Browser origins (scheme://host[:port]) allowed to call the FAPI with cookies, besides the fapi_url's own. */
  allowed_origins: z.array(z.string().max(2048)).max(100).default([]),
});

export type InstanceSettings = z.output<typeof instanceSettingsSchema>;

export function instanceSettings(stored: unknown): InstanceSettings {
  const parsed = instanceSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : instanceSettingsSchema.parse({});
}
