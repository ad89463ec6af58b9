import { randomInt } from 'node:crypto';
import { and, eq, gte, sql } from 'drizzle-orm';
import type { Deps } from '../deps';
import { runStatement } from '../db/prepared';
import { dailyMetricCounts, dailyMetrics, sessions, users, instances } from '../db/schema';
import { countUpsert, gettingStartedColumns } from './statements';

const DAY_MS = 86_400_000;
export const dayOf = (ms: number) => Math.floor(ms / DAY_MS);

/** Added to as they happen, in the transaction of what they count. */
export const COUNTERS = [
  'users_created',
  'sign_ins',
  'sign_in_failures',
  'webhook_deliveries_succeeded',
  'webhook_deliveries_failed',
] as const;
/** Set for the current day by `rollUpActivity`. */
export const GAUGES = ['total_users', 'daily_active_users', 'monthly_active_users', 'active_sessions'] as const;
export type Counter = (typeof COUNTERS)[number];
type Gauge = (typeof GAUGES)[number];

/** Rows a counter's day is spread over (schema/analytics.ts says why). */
export const METRIC_SHARDS = 16;

/** Adds to today's value of a counter, on one of its shards picked at random. */
export async function count(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, metric: Counter, n = 1) {
  await runStatement(deps.db, countWrite(deps, instanceId, metric, n));
}

/** count's write, to send with others (db/together.ts). */
export const countWrite = (deps: Pick<Deps, 'clock'>, instanceId: string, metric: Counter, n = 1) =>
  countUpsert({ instanceId, metric, day: dayOf(deps.clock.now()), shard: randomInt(METRIC_SHARDS), n });

/**
 * Sets today's gauges of every instance from the users and sessions tables: users who were
 * active today (last activity since midnight UTC) and in the last 30 days, live sessions,
 * all users. Runs every few minutes, so a day's figure is the last one taken that day.
 */
export async function rollUpActivity(deps: Pick<Deps, 'db' | 'clock'>) {
  const now = deps.clock.now();
  const day = dayOf(now);
  const active = await deps.db
    .select({
      instanceId: sessions.instanceId,
      daily: sql<number>`count(distinct ${sessions.userId}) filter (where ${sessions.lastActiveAt} >= ${day * DAY_MS})`,
      monthly: sql<number>`count(distinct ${sessions.userId})`,
      live: sql<number>`count(*) filter (where ${sessions.status} = 'active')`,
    })
    .from(sessions)
    .where(gte(sessions.lastActiveAt, now - 30 * DAY_MS))
    .groupBy(sessions.instanceId);
  const totals = await deps.db
    .select({ instanceId: users.instanceId, n: sql<number>`count(*)` })
    .from(users)
    .groupBy(users.instanceId);
  const rows = [
    ...active.flatMap((a) => [
      { instanceId: a.instanceId, metric: 'daily_active_users', value: Number(a.daily) },
      { instanceId: a.instanceId, metric: 'monthly_active_users', value: Number(a.monthly) },
      { instanceId: a.instanceId, metric: 'active_sessions', value: Number(a.live) },
    ]),
    ...totals.map((t) => ({ instanceId: t.instanceId, metric: 'total_users', value: Number(t.n) })),
  ].map((r) => ({ ...r, day }));
  for (let i = 0; i < rows.length; i += 500) {
    await deps.db
      .insert(dailyMetrics)
      .values(rows.slice(i, i + 500))
      .onConflictDoUpdate({
        target: [dailyMetrics.instanceId, dailyMetrics.metric, dailyMetrics.day],
        set: { value: sql`excluded.value` },
      });
  }
  return rows.length;
}

/** The last `days` days (today included) of every metric, zeros where nothing was recorded, oldest first. */
export async function instanceMetrics(deps: Pick<Deps, 'db' | 'clock'>, instanceId: string, days: number) {
  const today = dayOf(deps.clock.now());
  const first = today - days + 1;
  // Gauges and older counters (daily_metrics) with the counters' shards (daily_metric_counts), summed.
  const shards = deps.db
    .select({ metric: dailyMetricCounts.metric, day: dailyMetricCounts.day, value: dailyMetricCounts.value })
    .from(dailyMetricCounts)
    .where(and(eq(dailyMetricCounts.instanceId, instanceId), gte(dailyMetricCounts.day, first)));
  const both = deps.db
    .select({ metric: dailyMetrics.metric, day: dailyMetrics.day, value: dailyMetrics.value })
    .from(dailyMetrics)
    .where(and(eq(dailyMetrics.instanceId, instanceId), gte(dailyMetrics.day, first)))
    .unionAll(shards)
    .as('both');
  const rows = await deps.db
    .select({ metric: both.metric, day: both.day, value: sql<number>`sum(${both.value})::bigint`.mapWith(Number) })
    .from(both)
    .groupBy(both.metric, both.day);
  const series = Object.fromEntries(
    [...COUNTERS, ...GAUGES].map((metric) => [
      metric,
      Array.from({ length: days }, (_, i) => ({
        date: (first + i) * DAY_MS,
        value: rows.find((r) => r.metric === metric && r.day === first + i)?.value ?? 0,
      })),
    ]),
  ) as Record<Counter | Gauge, { date: number; value: number }[]>;
  return { object: 'instance_metrics' as const, days, series, checklist: await gettingStarted(deps, instanceId) };
}

/** What a new instance's operator has done of the first steps. */
async function gettingStarted(deps: Pick<Deps, 'db'>, instanceId: string) {
  const [row] = await deps.db.select(gettingStartedColumns(instanceId)).from(instances).where(eq(instances.id, instanceId));
  return {
    secret_key_used: !!row?.secret_key_used,
    first_user: !!row?.first_user,
    first_sign_in: !!row?.first_sign_in,
    production_instance: !!row?.production_instance,
    webhook_endpoint: !!row?.webhook_endpoint,
    branding: !!row?.branding,
    custom_domain: !!row?.custom_domain,
  };
}
