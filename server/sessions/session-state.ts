import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Deps } from '../deps';
import { afterCommit, inTransaction } from '../db/after-commit';
import { prepared } from '../db/prepared';
import { sessions, users } from '../db/schema';
import { ENDING_STATUSES, queueBackchannelLogouts } from './backchannel-queue';

/**
 * Session state as authoritative verification reads it, cached per node, and the ONE place
 * that changes it. Every UPDATE of `sessions` and every bump of `users.sessions_version` goes
 * through updateSessions / bumpSessionsVersion here (session-state.test.ts fails the build
 * otherwise), and each drops the changed sessions from every node's cache once its
 * transaction has ended (afterCommit, then the invalidation bus: Redis pub/sub or
 * PostgreSQL NOTIFY). A fill that raced a change is refused (TtlCache.setIfUnchanged), so a
 * revocation is seen at once on this node and within the bus's delay elsewhere; the TTL only
 * bounds a lost message.
 */
const SESSION_STATE_CACHE = 'session-state';
const SESSION_STATE_TTL_MS = 5_000;
const SESSION_STATE_MAX = 100_000;

type SessionRow = typeof sessions.$inferSelect;
export interface SessionState {
  session: SessionRow;
  sessionsVersion: number;
}

/** What changing session state needs: the database (or transaction) and the invalidation bus. */
export type SessionWriter = Pick<Deps, 'db' | 'clock' | 'cacheInvalidation'>;

const cacheOf = (deps: Pick<Deps, 'caches'>) => deps.caches.get<SessionState>(SESSION_STATE_CACHE, SESSION_STATE_TTL_MS, SESSION_STATE_MAX);

/** Drops sessions from every node's cache once the current transaction has ended. */
function invalidateSessions(deps: Pick<Deps, 'cacheInvalidation'>, ids: readonly string[]) {
  if (ids.length === 0) return;
  const keys = [...new Set(ids)];
  afterCommit(() => deps.cacheInvalidation.invalidateMany(SESSION_STATE_CACHE, keys));
}

/**
 * The one UPDATE of `sessions`: sets `set` on the rows `where` selects and returns them.
 * `activityOnly` (last_active_at, abandon_at, activity columns, nothing verification
 * answers differently for) drops the entries of this node only; anything else — status,
 * the active organization — is invalidated on every node.
 */
export async function updateSessions(
  deps: SessionWriter & Partial<Pick<Deps, 'caches'>>,
  set: Partial<typeof sessions.$inferInsert>,
  where: SQL | undefined,
  opts: { activityOnly?: boolean } = {},
): Promise<SessionRow[]> {
  const rows = await deps.db.update(sessions).set(set).where(where).returning();
  const ids = rows.map((r) => r.id);
  // A session that ends signs its relying parties out too (OpenID Back-Channel Logout), queued with the change.
  if (set.status !== undefined && ENDING_STATUSES.has(set.status)) await queueBackchannelLogouts(deps, ids);
  const caches = deps.caches;
  if (opts.activityOnly && caches) afterCommit(() => ids.forEach((id) => forgetSessionHere({ caches }, id)));
  else invalidateSessions(deps, ids);
  return rows;
}

/**
 * Increments a user's sessions_version (outstanding JWTs stop verifying), optionally with
 * other columns of the user (a new password); invalidates the user's live sessions.
 */
export async function bumpSessionsVersion(
  deps: SessionWriter,
  instanceId: string,
  userId: string,
  also: Partial<typeof users.$inferInsert> = {},
) {
  const [user] = await deps.db
    .update(users)
    .set({ ...also, sessionsVersion: sql`${users.sessionsVersion} + 1` })
    .where(and(eq(users.id, userId), eq(users.instanceId, instanceId)))
    .returning({ sessionsVersion: users.sessionsVersion, banned: users.banned });
  if (!user) return null;
  const live = await deps.db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.userId, userId), inArray(sessions.status, ['active', 'pending'])));
  invalidateSessions(
    deps,
    live.map((s) => s.id),
  );
  return user;
}

/** Forgets a session on this node only: its activity columns moved (a refresh), nothing another node must know at once. */
export function forgetSessionHere(deps: Pick<Deps, 'caches'>, id: string) {
  cacheOf(deps).delete(id);
}

/** Exported for its EXPLAIN test (sessions/query-plans.test.ts). */
export const stateQuery = prepared((db) =>
  db
    .select({ session: sessions, sessionsVersion: users.sessionsVersion })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.id, sql.placeholder('sessionId')), eq(sessions.instanceId, sql.placeholder('instanceId'))))
    .prepare('session_with_user_version'),
);

/** The session and its user's sessions_version from the database (one prepared query), null when absent. */
export async function loadSessionState(deps: Pick<Deps, 'db'>, instanceId: string, sessionId: string): Promise<SessionState | null> {
  const [found] = await stateQuery(deps.db).execute({ sessionId, instanceId });
  return found ?? null;
}

/**
 * The session's state for verification: from this node's cache when present, else one
 * query that fills it (unless the session was invalidated while it ran). Only the root
 * database handle fills the cache: a transaction might be reading its own uncommitted writes.
 */
export async function cachedSessionState(
  deps: Pick<Deps, 'db' | 'caches' | 'clock'>,
  instanceId: string,
  sessionId: string,
): Promise<SessionState | null> {
  const cache = cacheOf(deps);
  const now = deps.clock.now();
  const hit = cache.get(sessionId, now);
  if (hit && hit.session.instanceId === instanceId) return hit;
  const ticket = cache.begin();
  const found = await loadSessionState(deps, instanceId, sessionId);
  if (found && !inTransaction()) cache.setIfUnchanged(sessionId, found, now, ticket);
  return found;
}
