import { z } from 'zod';
import { PASSWORD_MIN_LENGTH } from '../crypto/passwords';

/** The instance's password policy (settings.password_policy): a length and the kinds of characters a password needs. */
export const passwordPolicySchema = z.strictObject({
  min_length: z.number().int().min(PASSWORD_MIN_LENGTH).max(128),
  require_uppercase: z.boolean(),
  require_lowercase: z.boolean(),
  require_digit: z.boolean(),
  require_symbol: z.boolean(),
});
export type PasswordPolicy = z.output<typeof passwordPolicySchema>;

export const DEFAULT_PASSWORD_POLICY: PasswordPolicy = {
  min_length: PASSWORD_MIN_LENGTH,
  require_uppercase: false,
  require_lowercase: false,
  require_digit: false,
  require_symbol: false,
};

/** Each required kind of character, with the reason a password without one is refused for. */
export const CHARACTER_RULES = [
  { key: 'require_uppercase', reason: 'missing_uppercase', test: (p: string) => /\p{Lu}/u.test(p), what: 'an uppercase letter' },
  { key: 'require_lowercase', reason: 'missing_lowercase', test: (p: string) => /\p{Ll}/u.test(p), what: 'a lowercase letter' },
  { key: 'require_digit', reason: 'missing_digit', test: (p: string) => /\p{Nd}/u.test(p), what: 'a digit' },
  { key: 'require_symbol', reason: 'missing_symbol', test: (p: string) => /[^\p{L}\p{N}\s]/u.test(p), what: 'a symbol' },
] as const;

/** How users may sign in (settings.sign_in_methods): at least one first factor stays on. */
export const signInMethodsSchema = z
  .strictObject({
    /** Password, with the reset-by-email-code that goes with it. */
    password: z.boolean(),
    /** A one-time code emailed to the address. */
    email_code: z.boolean(),
    /** A username as the identifier (an email address always works). */
    username: z.boolean(),
    /** A phone number as the identifier, signed in with a one-time code sent by SMS. */
    phone_code: z.boolean().default(false),
    /** A one-time link emailed to the address: clicking it signs in the browser that asked. */
    email_link: z.boolean().default(false),
    /**
     * The link completes the sign-in only when opened in the browser (client) that asked for
     * it; anywhere else it says so and signs nobody in. Off: any click completes it (the
     * asking browser is signed in wherever the link is opened).
     */
    email_link_same_browser: z.boolean().default(false),
    /**
     * Passkeys (WebAuthn): users register them on their profile and sign in with one as a
     * first factor (username-less or after an identifier); one counts as a second factor
     * where the instance asks for one (server/passkeys).
     */
    passkey: z.boolean().default(false),
  })
  .refine((m) => m.password || m.email_code || m.phone_code || m.email_link, {
    message: 'keep password, email_code, email_link or phone_code on: users need a way to sign in',
    params: { reason: 'no_first_factor' },
  });
export type SignInMethods = z.output<typeof signInMethodsSchema>;
export const DEFAULT_SIGN_IN_METHODS: SignInMethods = {
  password: true,
  email_code: true,
  username: true,
  phone_code: false,
  email_link: false,
  email_link_same_browser: false,
  passkey: false,
};
