import { AsyncLocalStorage } from 'node:async_hooks';

/** The callbacks waiting for the outermost transaction of the current async context. */
const pending = new AsyncLocalStorage<{ fns: (() => void)[]; done: boolean }>();

/**
 * Runs `fn` once what was just written is visible to others: when the outermost
 * transaction ends (committed or rolled back — callers only ever drop caches, which is
 * always safe), or at once outside any transaction (the statement has committed).
 * Cache invalidations go here: sent before the commit, another node could read the old
 * row after dropping its entry and cache it again.
 */
export function afterCommit(fn: () => void): void {
  const queue = pending.getStore();
  // done: work that outlived its transaction (fire-and-forget) runs its callbacks at once.
  if (queue && !queue.done) queue.fns.push(fn);
  else fn();
}

/** Makes `db.transaction` (the root handle's, so the outermost one) run the afterCommit callbacks when it ends. */
export function withAfterCommit<T extends object>(db: T): T {
  const begin = (db as unknown as { transaction: (...args: unknown[]) => Promise<unknown> }).transaction.bind(db);
  const wrapped = async (...args: unknown[]) => {
    const queue = { fns: [] as (() => void)[], done: false };
    try {
      return await pending.run(queue, () => begin(...args));
    } finally {
      queue.done = true;
      for (const fn of queue.fns) fn();
    }
  };
  (db as unknown as { transaction: typeof wrapped }).transaction = wrapped;
  return db;
}

/** True inside a transaction opened through the root handle: reads may see uncommitted writes. */
export function inTransaction(): boolean {
  const queue = pending.getStore();
  return !!queue && !queue.done;
}
