import { bigint, text } from 'drizzle-orm/pg-core';

/** Timestamps are integer milliseconds since the epoch, as the API shows them. */
export const millis = (name: string) => bigint(name, { mode: 'number' });

/** `created_at` and `updated_at`, set by the code that writes the row. */
export const timestamps = () => ({ createdAt: millis('created_at').notNull(), updatedAt: millis('updated_at').notNull() });

/**
 * How an external sign-in (SSO request, social flow) is bound to whoever started it
 * (server/auth/flow-binding.ts): a browser by the digest of its flow cookie's nonce; a
 * native app by its PKCE-style code challenge, and then the answer waits — the verified
 * identity, encrypted — until the app claims it with the verifier and the claim nonce the
 * browser was sent back with.
 */
export const flowBindingColumns = () => ({
  bindingDigest: text('binding_digest'),
  codeChallenge: text('code_challenge'),
  claimDigest: text('claim_digest'),
  identityEncrypted: text('identity_encrypted'),
});
