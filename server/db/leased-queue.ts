import { and, eq, getTableColumns, inArray, isNull, lte, or, sql, type InferSelectModel } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client';

/** A table several workers take rows from: a row is due at `next_attempt_at`, held under a lease (`locked_until`) while worked. */
export type LeasedQueue = PgTable & { id: PgColumn; status: PgColumn; nextAttemptAt: PgColumn; lockedUntil: PgColumn };

/**
 * Claims up to `limit` pending rows that are due. FOR UPDATE SKIP LOCKED keeps two workers off
 * the same rows; the lease keeps them off after the claim commits, and lets another worker take
 * a row over if its worker dies. `reclaimed`: the row had been claimed before (the lease lapsed
 * or was given back unfinished).
 */
export async function claimDue<T extends LeasedQueue>(
  db: Db,
  table: T,
  opts: { now: number; limit: number; leaseMs: number },
): Promise<(InferSelectModel<T> & { reclaimed: boolean })[]> {
  const q = table as LeasedQueue;
  const due = db
    .select({ id: q.id, earlierClaim: q.lockedUntil })
    .from(q)
    .where(and(eq(q.status, 'pending'), lte(q.nextAttemptAt, opts.now), or(isNull(q.lockedUntil), lte(q.lockedUntil, opts.now))))
    .orderBy(q.nextAttemptAt)
    .limit(opts.limit)
    .for('update', { skipLocked: true })
    .as('due');
  const claimed = await db
    .update(q)
    .set({ lockedUntil: opts.now + opts.leaseMs } as never)
    .from(due)
    .where(eq(q.id, due.id))
    .returning({ ...getTableColumns(q), reclaimed: sql<boolean>`${due.earlierClaim} is not null` });
  return claimed as unknown as (InferSelectModel<T> & { reclaimed: boolean })[];
}

/**
 * Gives back the leases of claimed rows still pending (a worker stopping with work unfinished):
 * another worker takes them at once instead of when the lease lapses (a lease ending now, not
 * none, so the next claim counts them as reclaimed).
 */
export async function releaseLeases(db: Db, table: LeasedQueue, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db
    .update(table)
    .set({ lockedUntil: now } as never)
    .where(and(inArray(table.id, ids), eq(table.status, 'pending')));
}
