import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis } from './columns';

/** The transactional outbox: every state change writes its event in the same transaction. */
export const events = pgTable(
  'events',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id').notNull(),
    type: text('type').notNull(),
    data: jsonb('data').$type<Record<string, unknown>>().notNull(),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [index('events_instance_type_idx').on(t.instanceId, t.type), index('events_instance_id_idx').on(t.instanceId, t.id)],
);
