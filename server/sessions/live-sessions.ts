import { and, desc, eq, gt, inArray } from 'drizzle-orm';
import type { Db } from '../db/client';
import { sessions } from '../db/schema';

/**
 * The live sessions (active or pending) of a client or of a user, newest first. With `now`,
 * only those still within their deadlines; without it, overdue ones too, for a caller that
 * settles or ends them.
 */
export function liveSessions(db: Db, instanceId: string, of: { clientId: string } | { userId: string }, opts: { now?: number } = {}) {
  const { now } = opts;
  return db
    .select()
    .from(sessions)
    .where(
      and(
        'clientId' in of ? eq(sessions.clientId, of.clientId) : eq(sessions.userId, of.userId),
        eq(sessions.instanceId, instanceId),
        inArray(sessions.status, ['active', 'pending']),
        now === undefined ? undefined : gt(sessions.expireAt, now),
        now === undefined ? undefined : gt(sessions.abandonAt, now),
      ),
    )
    .orderBy(desc(sessions.id));
}
