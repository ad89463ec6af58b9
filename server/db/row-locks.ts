/**
 * The lock a transaction takes on a parent row: one that other tables reference by foreign
 * key (users, organizations, instances, SCIM groups…). Inserting a referencing row takes
 * FOR KEY SHARE on the parent, and FOR UPDATE conflicts with it: a transaction that has
 * inserted a child (or that meets one in flight) and then asks for FOR UPDATE on the parent
 * waits on every KEY SHARE holder, and two of them, or one and a KEY SHARE holder queued
 * behind it, deadlock (PostgreSQL aborts one: a 500 for its client).
 *
 * - `no key update` serialises changes to the row (a cap, a read-merge-write, membership
 *   rules) without conflicting with KEY SHARE: inserts of children go on beside it.
 * - `update` is for deleting the row or changing a column of one of its unique indexes
 *   (a slug, a username, a custom domain), which take FOR UPDATE whatever is asked; it is
 *   taken first in the transaction, before anything references the row, so it only waits
 *   for others' transactions to end and never upgrades a lock it already holds.
 */
export type ParentLock = 'no key update' | 'update';
