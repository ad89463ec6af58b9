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
  /**
   * Who may sign up on FAPI: anyone (`public`), only allow-listed (or, later, invited)
   * email addresses (`restricted`), or nobody yet (`waitlist`: refused for now).
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
});

export type InstanceSettings = z.output<typeof instanceSettingsSchema>;

export function instanceSettings(stored: unknown): InstanceSettings {
  const parsed = instanceSettingsSchema.safeParse(stored ?? {});
  return parsed.success ? parsed.data : instanceSettingsSchema.parse({});
}
