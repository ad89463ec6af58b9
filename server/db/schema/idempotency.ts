import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { millis } from './columns';

export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    instanceId: text('instance_id').notNull(),
    /** The credential (secret key id) that made the request: a record replays only to it. */
    credentialId: text('credential_id').notNull().default(''),
    key: text('key').notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    status: integer('status').notNull(),
    body: text('body').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.credentialId, t.key] })],
);
