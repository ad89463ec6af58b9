import { bigint, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';

/**
 * One number per instance, metric and UTC day (days since the epoch): counters added to as
 * things happen (users created, sign-ins, failures, deliveries) and gauges the activity
 * roll-up sets (active users, sessions, total users). The overview reads these, never the
 * tables they summarise.
 */
export const dailyMetrics = pgTable(
  'daily_metrics',
  {
    instanceId: text('instance_id').notNull(),
    metric: text('metric').notNull(),
    day: integer('day').notNull(),
    value: bigint('value', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.metric, t.day] })],
);
