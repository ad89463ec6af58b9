import { integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { millis } from './columns';

export const idempotencyRecords = pgTable(
  'idempotency_records',
  {
    instanceId: text('instance_id').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of method, path and body: the same key with another request is refused. */
    fingerprint: text('fingerprint').notNull(),
    status: integer('status').notNull(),
    body: text('body').notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.key] })],
);
