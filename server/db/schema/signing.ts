import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis } from './columns';

/**
 * RS256 key pairs per instance. `next` is published before it signs; `current` signs;
 * `retired` stays published until `remove_after`, when every token it signed has expired.
 */
export const signingKeys = pgTable(
  'signing_keys',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    state: text('state', { enum: ['next', 'current', 'retired'] }).notNull(),
    publicJwk: jsonb('public_jwk').$type<Record<string, string>>().notNull(),
    /** PKCS#8 PEM, AES-256-GCM encrypted with ENCRYPTION_KEY. */
    privateKey: text('private_key').notNull(),
    createdAt: millis('created_at').notNull(),
    activatedAt: millis('activated_at'),
    retiredAt: millis('retired_at'),
    removeAfter: millis('remove_after'),
  },
  (t) => [index('signing_keys_instance_idx').on(t.instanceId, t.state)],
);
