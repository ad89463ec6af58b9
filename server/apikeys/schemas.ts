import { z } from 'zod';
import { metadataInput } from '../http/metadata';
import { cursorPageSchema, pageQuery } from '../http/pagination';

/** Checked against the instance by the domain, a malformed id included: it names nothing. */
const subject = z
  .string()
  .min(1)
  .max(64)
  .meta({ description: 'The id of a user (user_…) or organization (org_…) of this instance (422 not_found otherwise).' });
const name = z.string().trim().min(1).max(256);
const description = z.string().trim().max(1024).nullable();
/** The customer's own scopes: opaque to us, but bounded and free of whitespace. */
const scopes = z
  .array(
    z
      .string()
      .min(1)
      .max(128)
      .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces'),
  )
  .max(100);
/** Copied into every verify answer: bounded like metadata (8 KiB as JSON, 10 levels). */
const claims = metadataInput.nullable();
/** From one minute to ten years; absent or null: the key never expires. */
const expiresInSeconds = z
  .number()
  .int()
  .min(60)
  .max(10 * 365 * 24 * 3600)
  .nullable();
const revocationReason = z.string().trim().max(512).nullable();

export const createApiKeyBody = z.strictObject({
  subject,
  name,
  description: description.optional(),
  scopes: scopes.optional(),
  claims: claims.optional(),
  expires_in_seconds: expiresInSeconds.optional(),
  created_by: z.string().min(1).max(64).nullable().optional().meta({ description: 'The user (user_…) who created the key.' }),
});

/** Self-service (FAPI, console-free): a user names the key; scopes and claims are the customer's to grant. */
export const createOwnApiKeyBody = z.strictObject({
  name,
  description: description.optional(),
  expires_in_seconds: expiresInSeconds.optional(),
});

export const updateApiKeyBody = z.strictObject({
  name: name.optional(),
  description: description.optional(),
  scopes: scopes.optional(),
  claims: claims.optional(),
});

export const revokeApiKeyBody = z.strictObject({ revocation_reason: revocationReason.optional() });

export const verifyApiKeyBody = z.strictObject({ secret: z.string().max(512) });

const booleanQuery = z.enum(['true', 'false']).transform((v) => v === 'true');

export const listApiKeysQuery = z.strictObject({
  ...pageQuery,
  subject: z.string().min(1).max(64).optional(),
  revoked: booleanQuery.optional(),
});

export const apiKeySchema = z
  .object({
    object: z.literal('api_key'),
    id: z.string(),
    subject: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    scopes: z.array(z.string()),
    claims: z.record(z.string(), z.unknown()).nullable(),
    /** When the key expires (ms), or null. */
    expiration: z.number().int().nullable(),
    created_by: z.string().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
    /** The last verification, to the minute. */
    last_used_at: z.number().int().nullable(),
    revoked: z.boolean(),
    revocation_reason: z.string().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const createdApiKeySchema = apiKeySchema.extend({ secret: z.string() });
export const apiKeyListSchema = cursorPageSchema(apiKeySchema);
