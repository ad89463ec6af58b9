import { and, asc, desc, gt, lt, type AnyColumn, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from '../db/client';
import type { CursorPage } from './pagination';

/**
 * The keyset-paginated list of the house: rows in the order of a unique key column (an id),
 * `starting_after` the key of the previous page's last row, one row more than the page read
 * to tell whether another page follows.
 */
export interface PageInput {
  limit: number;
  starting_after?: string;
}

/** The key column of a list and its direction. */
export interface ListOrder {
  column: AnyColumn;
  direction: 'asc' | 'desc';
}
export const newestFirst = (column: AnyColumn): ListOrder => ({ column, direction: 'desc' });
export const oldestFirst = (column: AnyColumn): ListOrder => ({ column, direction: 'asc' });

/** What a page's query adds to its own filters: the rows past the cursor, the order, how many to read. */
export interface Keyset {
  after: SQL | undefined;
  orderBy: SQL;
  limit: number;
}

export function keyset(order: ListOrder, page: PageInput): Keyset {
  const ascending = order.direction === 'asc';
  return {
    after: page.starting_after ? (ascending ? gt : lt)(order.column, page.starting_after) : undefined,
    orderBy: ascending ? asc(order.column) : desc(order.column),
    limit: page.limit + 1,
  };
}

/** The query of most lists: whole rows of one table matching `where`. */
export const tableRows =
  <T extends PgTable>(db: Db, table: T, ...where: (SQL | undefined)[]) =>
  (k: Keyset): Promise<T['$inferSelect'][]> =>
    db
      .select()
      .from(table as PgTable)
      .where(and(...where, k.after))
      .orderBy(k.orderBy)
      .limit(k.limit) as Promise<T['$inferSelect'][]>;

/** A page of rows read with `limit + 1`: the rows shown and whether another page follows. */
function pageOf<R>(rows: R[], limit: number) {
  const hasMore = rows.length > limit;
  return { rows: hasMore ? rows.slice(0, limit) : rows, hasMore };
}

const idOf = (r: unknown) => (r as { id: string }).id;

/**
 * The cursor envelope `{ data, has_more, next_cursor }`: `rows` reads the page with the
 * keyset, `view` renders each row, `cursorOf` names a row's key (its `id` unless told).
 */
export async function cursorList<R, T>(
  page: PageInput,
  order: ListOrder,
  rows: (k: Keyset) => Promise<R[]>,
  view: (r: R) => T,
  cursorOf: (r: R) => string = idOf,
): Promise<CursorPage<T>> {
  const { rows: shown, hasMore } = pageOf(await rows(keyset(order, page)), page.limit);
  return { data: shown.map(view), has_more: hasMore, next_cursor: hasMore ? cursorOf(shown[shown.length - 1]!) : null };
}

/** The light envelope `{ object: 'list', data, has_more }` (the organization sub-resources). */
export async function lightList<R, T>(page: PageInput, order: ListOrder, rows: (k: Keyset) => Promise<R[]>, view: (r: R) => T) {
  const { rows: shown, hasMore } = pageOf(await rows(keyset(order, page)), page.limit);
  return { object: 'list' as const, data: shown.map(view), has_more: hasMore };
}
