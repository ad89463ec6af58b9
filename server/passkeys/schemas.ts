import { z } from 'zod';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from './webauthn';
import { PASSKEY_NAME_MAX } from './passkeys';

/**
 * The browser's answers as @simplewebauthn/browser (or `PublicKeyCredential.toJSON()`)
 * gives them: base64url fields, bounded. Sent as an object, or as its JSON in a string (as
 * Clerk's clients send `public_key_credential`).
 */
const b64url = (max: number) =>
  z
    .string()
    .min(1)
    .max(max)
    .regex(/^[A-Za-z0-9_-]+={0,2}$/, { message: 'must be base64url' });
const credentialBase = {
  id: b64url(1400),
  rawId: b64url(1400),
  type: z.literal('public-key'),
  clientExtensionResults: z.record(z.string(), z.unknown()).default({}),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
};

const assertionShape = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url(8192),
    authenticatorData: b64url(8192),
    signature: b64url(2048),
    userHandle: b64url(256).optional(),
  }),
});

const attestationShape = z.object({
  ...credentialBase,
  response: z.object({
    clientDataJSON: b64url(8192),
    attestationObject: b64url(32768),
    authenticatorData: b64url(8192).optional(),
    transports: z.array(z.string().max(32)).max(10).optional(),
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(4096).optional(),
  }),
});

/** An object, or its JSON as a string. */
const objectOrJson = <T extends z.ZodType>(shape: T) =>
  z.preprocess((v) => {
    if (typeof v !== 'string' || v.length > 65536) return v;
    try {
      return JSON.parse(v);
    } catch {
      return v;
    }
  }, shape);

export const assertionInput = objectOrJson(assertionShape)
  .transform((v) => v as unknown as AuthenticationResponseJSON)
  .meta({
    description:
      'The passkey’s answer (AuthenticationResponseJSON: what @simplewebauthn/browser’s startAuthentication resolves to), or its JSON',
  });
export const attestationInput = objectOrJson(attestationShape)
  .transform((v) => v as unknown as RegistrationResponseJSON)
  .meta({
    description: 'The new passkey (RegistrationResponseJSON: what @simplewebauthn/browser’s startRegistration resolves to), or its JSON',
  });

export const passkeyName = z.string().trim().min(1).max(PASSKEY_NAME_MAX);

export const passkeySchema = z
  .object({
    object: z.literal('passkey'),
    id: z.string(),
    user_id: z.string(),
    name: z.string(),
    credential_id: z.string(),
    aaguid: z.string(),
    transports: z.array(z.string()),
    device_type: z.enum(['singleDevice', 'multiDevice']),
    backed_up: z.boolean(),
    rp_id: z.string(),
    last_used_at: z.number().int().nullable(),
    status: z
      .enum(['active', 'disabled'])
      .meta({ description: '`disabled` once its counter went backwards (a cloned authenticator): it signs no one in' }),
    disabled_reason: z.enum(['sign_count_regressed']).nullable(),
    disabled_at: z.number().int().nullable(),
    created_at: z.number().int(),
    updated_at: z.number().int(),
  })
  .meta({ id: 'Passkey' });
export const passkeyListSchema = z.object({ object: z.literal('list'), data: z.array(passkeySchema), has_more: z.boolean() });
export const deletedPasskeySchema = z.object({ object: z.literal('passkey'), id: z.string(), deleted: z.literal(true) });

export const registrationSchema = z.object({
  object: z.literal('passkey_registration'),
  /** PublicKeyCredentialCreationOptionsJSON: hand it to @simplewebauthn/browser’s startRegistration({ optionsJSON }). */
  options: z.record(z.string(), z.unknown()),
  expire_at: z.number().int(),
});
