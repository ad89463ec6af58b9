import { index, jsonb, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { millis, timestamps } from './columns';
import { instanceRef } from './instances';

/**
 * End-user API keys (`apik_…`, secret `ak_…`): a customer's users and organizations call
 * the customer's own API with them, and the customer asks us whether one is valid. The
 * secret is shown once and stored only as its SHA-256. `subject` is a user_ or org_ id
 * and deliberately not a foreign key: deleting the subject revokes its keys, and a revoked
 * key stays readable (verify answers `revoked`, not `unknown`).
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    instanceId: instanceRef('cascade'),
    subject: text('subject').notNull(),
    name: text('name').notNull(),
    description: text('description'),
    /** The customer's own scopes, opaque to us. */
    scopes: jsonb('scopes').$type<string[]>().notNull(),
    claims: jsonb('claims').$type<Record<string, unknown>>(),
    digest: text('digest').notNull(),
    /** The user who minted it (self-service, or `created_by` on the BAPI); null otherwise. */
    createdBy: text('created_by'),
    expiresAt: millis('expires_at'),
    lastUsedAt: millis('last_used_at'),
    revokedAt: millis('revoked_at'),
    revocationReason: text('revocation_reason'),
    ...timestamps(),
  },
  (t) => [
    uniqueIndex('api_keys_digest_uq').on(t.digest),
    index('api_keys_instance_idx').on(t.instanceId, t.id),
    index('api_keys_subject_idx').on(t.instanceId, t.subject, t.id),
  ],
);
