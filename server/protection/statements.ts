import { sql } from 'drizzle-orm';
import { knownDevices, signInFailures } from '../db/schema';

/** Attack protection's hand-written statements (docs/development.md, "Data access"). */

/** Forgets the user's failed sign-in attempts. */
export const clearFailuresSql = (instanceId: string, userId: string) =>
  sql`delete from ${signInFailures} where instance_id = ${instanceId} and subject = ${`user:${userId}`}`;

/** Remembers devices and networks of a user (each marker's row new, or its last sighting moved to now). */
export const knownDevicesUpsertSql = (
  instanceId: string,
  userId: string,
  markers: readonly { id: string; kind: string; value: string }[],
  now: number,
) => {
  const rows = markers.map((m) => sql`(${m.id}, ${instanceId}, ${userId}, ${m.kind}, ${m.value}, ${now}, ${now})`);
  return sql`insert into ${knownDevices} (id, instance_id, user_id, kind, value, first_seen_at, last_seen_at) values ${sql.join(rows, sql`, `)}
             on conflict (user_id, kind, value) do update set last_seen_at = excluded.last_seen_at`;
};
