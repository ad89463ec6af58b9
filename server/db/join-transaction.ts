import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Db } from './client';

/**
 * Runs `work` in the caller's transaction when there is one (no savepoint: two round trips
 * spared), else in a new one. For work whose refusals all come before its first write, so
 * that it never leaves a partial write behind for a caller that catches the refusal.
 */
export function joinTransaction<T>(db: Db, work: (tx: Db) => Promise<T>): Promise<T> {
  const inOne: boolean = db instanceof PgTransaction;
  return inOne ? work(db) : db.transaction(work);
}
