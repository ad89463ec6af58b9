import { z } from 'zod';
import { emailAddress, phoneNumber } from '../email/addresses';
import { localeInput } from '../instances/locales';
import { metadataInput } from '../http/metadata';
import { cursorPageSchema, pageQuery } from '../http/pagination';
import { DIGEST_FORMATS, PASSWORD_HASHERS, PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from '../crypto/passwords';

/** PATCH metadata: merged into the stored object; a `null` value deletes its key. Bounded like any metadata. */
const metadataPatch = metadataInput;

const oneOrMany = <T extends z.ZodType>(item: T) => z.preprocess((v) => (typeof v === 'string' ? [v] : v), z.array(item).max(10));

export const username = z
  .string()
  .min(3)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'may contain only letters, digits, "_", "." and "-"');

const name = z.string().trim().max(256);
const password = z.string().min(PASSWORD_MIN_LENGTH).max(PASSWORD_MAX_LENGTH).meta({
  description:
    'Unless skip_password_checks is true, must not equal one of the user’s identifiers (case-insensitive), nor be a common or breached password when attack protection checks for them (422 password_compromised otherwise).',
});

const passwordDigest = z.string().min(1).max(1024).meta({
  description:
    'A digest in the format of password_hasher (argon2 PHC string, bcrypt $2b$…, scrypt:N:r:p$salt$hex, pbkdf2_sha256$iterations$salt$hash) with cost parameters within the import limits (422 invalid otherwise).',
});

/** What the password rules say in JSON Schema: a digest comes with its hasher, and never with a password. */
const passwordRules = {
  dependentRequired: { password_digest: ['password_hasher'], password_hasher: ['password_digest'] },
  not: { required: ['password', 'password_digest'] },
  allOf: PASSWORD_HASHERS.map((hasher) => ({
    if: { properties: { password_hasher: { const: hasher } }, required: ['password_hasher'] },
    then: { properties: { password_digest: { pattern: DIGEST_FORMATS[hasher].source } } },
  })),
};

export const createUserBody = z
  .strictObject({
    email_address: oneOrMany(emailAddress).optional(),
    phone_number: oneOrMany(phoneNumber).optional(),
    username: username.optional(),
    first_name: name.optional(),
    last_name: name.optional(),
    external_id: z.string().min(1).max(256).optional(),
    password: password.optional(),
    password_digest: passwordDigest.optional(),
    password_hasher: z.enum(PASSWORD_HASHERS).optional(),
    skip_password_checks: z.boolean().optional(),
    public_metadata: metadataInput.optional(),
    private_metadata: metadataInput.optional(),
    unsafe_metadata: metadataInput.optional(),
    /** Preferred language of the user's emails, SMS and hosted pages (a supported BCP 47 tag). */
    locale: localeInput.optional(),
  })
  .superRefine(checkPasswordInputs)
  .meta({
    ...passwordRules,
    // A user needs an identifier (422 identifier_required otherwise).
    anyOf: [
      { required: ['email_address'], properties: { email_address: { minItems: 1 } } },
      { required: ['phone_number'], properties: { phone_number: { minItems: 1 } } },
      { required: ['username'] },
    ],
  });

export const updateUserBody = z
  .strictObject({
    username: username.nullable().optional(),
    first_name: name.nullable().optional(),
    last_name: name.nullable().optional(),
    external_id: z.string().min(1).max(256).nullable().optional(),
    primary_email_address_id: z.string().optional(),
    primary_phone_number_id: z.string().optional(),
    password: password.optional(),
    password_digest: passwordDigest.optional(),
    password_hasher: z.enum(PASSWORD_HASHERS).optional(),
    skip_password_checks: z.boolean().optional(),
    public_metadata: metadataPatch.optional(),
    private_metadata: metadataPatch.optional(),
    unsafe_metadata: metadataPatch.optional(),
    locale: localeInput.nullable().optional(),
  })
  .superRefine(checkPasswordInputs)
  .meta(passwordRules);

function checkPasswordInputs(v: { password?: string; password_digest?: string; password_hasher?: string }, ctx: z.RefinementCtx) {
  if (v.password !== undefined && v.password_digest !== undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['password_digest'],
      message: 'cannot be given together with password',
      params: { reason: 'conflict' },
    });
  }
  if ((v.password_digest === undefined) !== (v.password_hasher === undefined)) {
    ctx.addIssue({
      code: 'custom',
      path: [v.password_digest === undefined ? 'password_digest' : 'password_hasher'],
      message: 'password_digest and password_hasher go together',
      params: { reason: 'required_together' },
    });
  }
}

/** `true` / `false` in a query string. */
const flag = z.enum(['true', 'false']).transform((v) => v === 'true');
const millis = z.coerce.number().int().min(0).max(8_640_000_000_000_000);

/** Filters of a user list (and count, and CSV export). */
const userFilterQuery = {
  email_address: oneOrMany(z.string().max(320)).optional(),
  external_id: oneOrMany(z.string().max(256)).optional(),
  username: oneOrMany(z.string().max(64)).optional(),
  query: z.string().trim().min(1).max(256).optional(),
  banned: flag.optional(),
  locked: flag.optional(),
  /** Has a second factor (TOTP). */
  has_mfa: flag.optional(),
  /** Has at least one verified email address. */
  email_verified: flag.optional(),
  /** created_at >= created_after (ms), < created_before. */
  created_after: millis.optional(),
  created_before: millis.optional(),
  /** last_sign_in_at >= last_active_after (ms), < last_active_before. */
  last_active_after: millis.optional(),
  last_active_before: millis.optional(),
};

const USER_ORDERS = ['-created_at', 'created_at', '-last_sign_in_at', 'last_sign_in_at', 'name', '-name'] as const;

export const listUsersQuery = z.strictObject({
  ...pageQuery,
  ...userFilterQuery,
  order_by: z.enum(USER_ORDERS).optional(),
});

const verification = z.object({ status: z.enum(['verified', 'unverified']), strategy: z.string().nullable() }).nullable();

export const emailAddressSchema = z
  .object({
    object: z.literal('email_address'),
    id: z.string(),
    email_address: z.string(),
    verification,
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'EmailAddress' });

export const phoneNumberSchema = z
  .object({
    object: z.literal('phone_number'),
    id: z.string(),
    phone_number: z.string(),
    verification,
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'PhoneNumber' });

export const userSchema = z
  .object({
    object: z.literal('user'),
    id: z.string(),
    external_id: z.string().nullable(),
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    username: z.string().nullable(),
    primary_email_address_id: z.string().nullable(),
    primary_phone_number_id: z.string().nullable(),
    email_addresses: z.array(emailAddressSchema),
    phone_numbers: z.array(phoneNumberSchema),
    password_enabled: z.boolean(),
    two_factor_enabled: z.boolean(),
    public_metadata: z.record(z.string(), z.unknown()),
    private_metadata: z.record(z.string(), z.unknown()),
    unsafe_metadata: z.record(z.string(), z.unknown()),
    banned: z.boolean(),
    locked: z.boolean(),
    /** While locked after failed sign-in attempts: when the lockout ends (ms). */
    locked_until: z.number().int().nullable(),
    sessions_version: z.number().int(),
    last_sign_in_at: z.number().int().nullable(),
    /** Preferred language (BCP 47), or null: the request's, then the instance's default. */
    locale: z.string().nullable(),
    /** The uploaded profile image (served by the FAPI, cached for ever at this URL), '' without one. */
    image_url: z.string(),
    has_image: z.boolean(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'User' });

export const userListSchema = cursorPageSchema(userSchema);

/** A personal access token as lists show it (never its secret). */
export const apiTokenSchema = z
  .object({
    object: z.literal('api_token'),
    id: z.string(),
    name: z.string(),
    scopes: z.array(z.string()),
    status: z.enum(['active', 'expired', 'revoked']),
    expires_at: z.number().int().nullable(),
    last_used_at: z.number().int().nullable(),
    revoked_at: z.number().int().nullable(),
    created_at: z.number().int(),
  })
  .meta({ id: 'ApiToken' });

export const apiTokenListSchema = z.object({ object: z.literal('list'), data: z.array(apiTokenSchema), has_more: z.boolean() });

export const deletedUserSchema = z.object({ object: z.literal('user'), id: z.string(), deleted: z.literal(true) });

export type CreateUserInput = z.output<typeof createUserBody>;
export type UpdateUserInput = z.output<typeof updateUserBody>;
export type ListUsersInput = z.output<typeof listUsersQuery>;
export type UserView = z.output<typeof userSchema>;
