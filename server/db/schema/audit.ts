import { index, jsonb, pgTable, text } from 'drizzle-orm/pg-core';
import { millis } from './columns';

export const auditLogs = pgTable(
  'audit_logs',
  {
    id: text('id').primaryKey(),
    instanceId: text('instance_id'),
    /** Who acted: `key:<id>`, `cli`, `user:<id>`, `system`. */
    actor: text('actor').notNull(),
    /** The actor's kind (server/http/actor.ts); null on entries written before it was recorded. */
    actorKind: text('actor_kind'),
    action: text('action').notNull(),
    target: text('target'),
    ip: text('ip'),
    userAgent: text('user_agent'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: millis('created_at').notNull(),
  },
  (t) => [index('audit_logs_instance_idx').on(t.instanceId, t.id)],
);
