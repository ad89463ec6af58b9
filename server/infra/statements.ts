import { sql } from 'drizzle-orm';

/** The process services' hand-written statements (docs/development.md, "Data access"). */

/** Sends a message to every node listening on the channel. */
export const notifySql = (channel: string, message: object) => sql`select pg_notify(${channel}, ${JSON.stringify(message)})`;
