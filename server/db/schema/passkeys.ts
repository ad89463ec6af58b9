import { boolean, index, jsonb, pgTable, primaryKey, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { users } from './users';

/**
 * A user's passkeys (WebAuthn credentials), id `passkey_…`. The public key is the COSE key
 * the authenticator answered at registration (base64url); the credential id is unique in
 * an instance. `sign_count` is the authenticator's counter as last seen: an assertion with a
 * counter not above it (when either is non-zero) is a cloned authenticator: refused, and the
 * passkey disabled.
 * `rp_id` is the relying party the credential is scoped to (the fapi_url's host it was
 * registered on).
 */
export const passkeys = pgTable(
  'passkeys',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    credentialId: text('credential_id').notNull(),
    publicKey: text('public_key').notNull(),
    signCount: millis('sign_count').notNull(),
    transports: jsonb('transports').$type<string[]>().notNull().default([]),
    aaguid: text('aaguid').notNull(),
    /** `singleDevice` or `multiDevice` (a synced passkey). */
    deviceType: text('device_type', { enum: ['singleDevice', 'multiDevice'] }).notNull(),
    backedUp: boolean('backed_up').notNull(),
    rpId: text('rp_id').notNull(),
    name: text('name').notNull(),
    lastUsedAt: millis('last_used_at'),
    /**
     * Set when the passkey stops signing anyone in: its counter went backwards (a cloned
     * authenticator — the clone and the original are told apart by nothing, so both stop).
     * The user deletes it and registers a new one.
     */
    disabledAt: millis('disabled_at'),
    disabledReason: text('disabled_reason', { enum: ['sign_count_regressed'] }),
    ...timestamps(),
  },
  (t) => [uniqueIndex('passkeys_credential_uq').on(t.instanceId, t.credentialId), index('passkeys_user_idx').on(t.userId, t.id)],
);

export const PASSKEY_CHALLENGE_PURPOSES = ['registration', 'sign_in', 'second_factor', 'reverification'] as const;
export type PasskeyChallengePurpose = (typeof PASSKEY_CHALLENGE_PURPOSES)[number];

/**
 * The live WebAuthn challenge of one ceremony, single use: a registration is bound to the
 * session that asked (`subject` = its `sess_…`), a sign-in or second factor to the sign-in
 * attempt (`sia_…`), which belongs to the client that made it, a reverification to the session
 * it verifies. A new challenge for the same subject and purpose replaces the old one;
 * verifying deletes it whatever the outcome.
 */
export const passkeyChallenges = pgTable(
  'passkey_challenges',
  {
    subject: text('subject').notNull(),
    purpose: text('purpose', { enum: PASSKEY_CHALLENGE_PURPOSES }).notNull(),
    instanceId: text('instance_id').notNull(),
    /** The user the ceremony is for; null for a username-less sign-in (the credential names the user). */
    userId: text('user_id'),
    challenge: text('challenge').notNull(),
    rpId: text('rp_id').notNull(),
    expiresAt: millis('expires_at').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.subject, t.purpose] }), index('passkey_challenges_expires_idx').on(t.expiresAt)],
);
