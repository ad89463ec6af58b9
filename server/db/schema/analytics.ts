import { bigint, integer, pgTable, primaryKey, smallint, text } from 'drizzle-orm/pg-core';

/**
 * One number per instance, metric and UTC day (days since the epoch): the gauges the activity
 * roll-up sets (active users, sessions, total users), and counters of the releases before
 * `daily_metric_counts` (read with it). The overview reads these, never the tables they
 * summarise.
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

/**
 * Counters added to as things happen (users created, sign-ins, failures, deliveries), each
 * day's value spread over METRIC_SHARDS rows (`shard`), an add picking one at random, read
 * as their sum. An add runs in the transaction of what it counts, so one row per counter and
 * day would queue every concurrent sign-in of an instance on its lock until commit. A table
 * of its own, not a column of daily_metrics: nodes of the previous release keep adding to
 * daily_metrics (its primary key unchanged) during a rolling upgrade, and both are summed.
 */
export const dailyMetricCounts = pgTable(
  'daily_metric_counts',
  {
    instanceId: text('instance_id').notNull(),
    metric: text('metric').notNull(),
    day: integer('day').notNull(),
    shard: smallint('shard').notNull(),
    value: bigint('value', { mode: 'number' }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.instanceId, t.metric, t.day, t.shard] })],
);
