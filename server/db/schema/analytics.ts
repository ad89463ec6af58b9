import { bigint, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/**
 * One number per instance, metric and UTC day (days since the epoch): counters added to as
 * things happen (users created, sign-ins, failures, deliveries) and gauges the activity
 * roll-up sets (active users, sessions, total users). The overview reads these, never the
 * tables they summarise.
 *
 * A counter is spread over METRIC_SHARDS rows (`shard`), each add picking one at random, and
 * read as their sum: an add runs in the transaction of what it counts (a sign-in, a new
 * user), so one row per counter and day would queue every concurrent sign-in of an instance
 * on its lock until commit. Gauges use shard 0.
 */
export const dailyMetrics = pgTable(
  'daily_metrics',
  {
    instanceId: text('instance_id').notNull(),
    metric: text('metric').notNull(),
    day: integer('day').notNull(),
    shard: smallint('shard').notNull().default(0),
    value: bigint('value', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.metric, t.day, t.shard] })],
);
