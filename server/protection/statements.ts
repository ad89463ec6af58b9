import { sql } from 'drizzle-orm';
import { statement } from '../db/prepared';
import { knownDevices, signInFailures } from '../db/schema';

/** Attack protection's hand-written statements (docs/development.md, "Data access"). */

/** Forgets the user's failed sign-in attempts. */
const clearFailures = statement<'instanceId' | 'subject'>(
  'sign_in_failures_clear',
  (v) => sql`delete from ${signInFailures} where instance_id = ${v.instanceId} and subject = ${v.subject}`,
);
export const clearFailuresSql = (instanceId: string, userId: string) => clearFailures({ instanceId, subject: `user:${userId}` });

/** The upsert of `n` markers (a client, a network, a country), each marker's values named by its position. */
const knownDevicesUpsert = (n: number) =>
  statement<string>(`known_devices_upsert_${n}`, (v) => {
    const rows = Array.from(
      { length: n },
      (_, i) => sql`(${v[`id${i}`]}, ${v.instanceId}, ${v.userId}, ${v[`kind${i}`]}, ${v[`value${i}`]}, ${v.now}, ${v.now})`,
    );
    return sql`insert into ${knownDevices} (id, instance_id, user_id, kind, value, first_seen_at, last_seen_at) values ${sql.join(rows, sql`, `)}
             on conflict (user_id, kind, value) do update set last_seen_at = excluded.last_seen_at`;
  });
const knownDevicesUpserts: ReturnType<typeof knownDevicesUpsert>[] = [];

/** Remembers devices and networks of a user (each marker's row new, or its last sighting moved to now). */
export const knownDevicesUpsertSql = (
  instanceId: string,
  userId: string,
  markers: readonly { id: string; kind: string; value: string }[],
  now: number,
) => {
  const values: Record<string, unknown> = { instanceId, userId, now };
  markers.forEach((m, i) => Object.assign(values, { [`id${i}`]: m.id, [`kind${i}`]: m.kind, [`value${i}`]: m.value }));
  return (knownDevicesUpserts[markers.length] ??= knownDevicesUpsert(markers.length))(values);
};
