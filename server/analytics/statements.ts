import { sql } from 'drizzle-orm';
import { statement } from '../db/prepared';
import { dailyMetricCounts, instanceLogos, instances, secretKeys, sessions, users, webhookEndpoints } from '../db/schema';

/** The analytics domain's hand-written statements (docs/development.md, "Data access"). */

/** Adds `n` to one shard of a counter's day, creating the row on first use. */
export const countUpsert = statement<'instanceId' | 'metric' | 'day' | 'shard' | 'n'>(
  'count_upsert',
  (v) => sql`insert into ${dailyMetricCounts} (instance_id, metric, day, shard, value)
      values (${v.instanceId}, ${v.metric}, ${v.day}, ${v.shard}, ${v.n})
      on conflict (instance_id, metric, day, shard) do update set value = ${dailyMetricCounts.value} + excluded.value`,
);

const exists = (q: ReturnType<typeof sql>) => sql<boolean>`exists (${q})`;

/** The getting-started checklist of an instance, as the columns of a query `from(instances)` of it. */
export const gettingStartedColumns = (instanceId: string) => ({
  secret_key_used: exists(
    sql`select 1 from ${secretKeys} where ${secretKeys.instanceId} = ${instanceId} and ${secretKeys.lastUsedAt} is not null`,
  ),
  first_user: exists(sql`select 1 from ${users} where ${users.instanceId} = ${instanceId}`),
  first_sign_in: exists(sql`select 1 from ${sessions} where ${sessions.instanceId} = ${instanceId}`),
  // A live instance beside this one in its account (the one real users will sign in to).
  // (Qualified by hand: a single-table select writes its columns unqualified, which the subquery's alias would capture.)
  production_instance: sql<boolean>`("instances"."environment" = 'live' or exists (select 1 from ${instances} as live where live.account_id = "instances"."account_id" and live.environment = 'live'))`,
  webhook_endpoint: exists(sql`select 1 from ${webhookEndpoints} where ${webhookEndpoints.instanceId} = ${instanceId}`),
  custom_domain: sql<boolean>`${instances.customDomain} is not null`,
  // A logo, or any of the branding settings (application name, colour, support address).
  branding: sql<boolean>`(exists (select 1 from ${instanceLogos} where ${instanceLogos.instanceId} = ${instanceId}) or jsonb_path_exists(${instances.settings}, '$.branding.* ? (@ != null)'))`,
});
