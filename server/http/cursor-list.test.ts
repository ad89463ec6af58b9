import { eq, sql } from 'drizzle-orm';
import { pgTable, text } from 'drizzle-orm/pg-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client';
import { openTestDatabase } from '../testing/database';
import { cursorList, lightList, newestFirst, oldestFirst, tableRows, type Keyset } from './cursor-list';

const items = pgTable('cursor_list_items', { id: text('id').primaryKey(), kind: text('kind').notNull() });
const ids = ['i01', 'i02', 'i03', 'i04', 'i05', 'i06', 'i07'];

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
  await database.db.execute(sql`create table cursor_list_items (id text primary key, kind text not null)`);
  // Inserted out of order: the key column orders, not the insertion.
  for (const id of [...ids].reverse()) await database.db.insert(items).values({ id, kind: Number(id.slice(1)) % 2 ? 'odd' : 'even' });
});
afterAll(() => database?.close());

const view = (r: { id: string }) => r.id;

describe('cursorList', () => {
  it('walks newest first, one row past each page telling whether another follows', async () => {
    const rows = tableRows(database.db, items);
    const first = await cursorList({ limit: 3 }, newestFirst(items.id), rows, view);
    expect(first).toEqual({ data: ['i07', 'i06', 'i05'], has_more: true, next_cursor: 'i05' });
    const second = await cursorList({ limit: 3, starting_after: 'i05' }, newestFirst(items.id), rows, view);
    expect(second).toEqual({ data: ['i04', 'i03', 'i02'], has_more: true, next_cursor: 'i02' });
    const last = await cursorList({ limit: 3, starting_after: 'i02' }, newestFirst(items.id), rows, view);
    expect(last).toEqual({ data: ['i01'], has_more: false, next_cursor: null });
  });

  it('walks oldest first with the caller’s filters, and a page exactly full has no next', async () => {
    const odd = tableRows(database.db, items, eq(items.kind, 'odd'));
    expect(await cursorList({ limit: 4 }, oldestFirst(items.id), odd, view)).toEqual({
      data: ['i01', 'i03', 'i05', 'i07'],
      has_more: false,
      next_cursor: null,
    });
    expect(await cursorList({ limit: 2, starting_after: 'i01' }, oldestFirst(items.id), odd, view)).toEqual({
      data: ['i03', 'i05'],
      has_more: true,
      next_cursor: 'i05',
    });
  });

  it('takes a query of its own and names the cursor of a joined row', async () => {
    const joined = (k: Keyset) =>
      database.db
        .select({ item: items, upper: sql<string>`upper(${items.id})` })
        .from(items)
        .where(k.after)
        .orderBy(k.orderBy)
        .limit(k.limit);
    const page = await cursorList(
      { limit: 2 },
      newestFirst(items.id),
      joined,
      (r) => r.upper,
      (r) => r.item.id,
    );
    expect(page).toEqual({ data: ['I07', 'I06'], has_more: true, next_cursor: 'i06' });
  });
});

describe('lightList', () => {
  it('answers the light envelope: no next_cursor', async () => {
    const rows = tableRows(database.db, items);
    expect(await lightList({ limit: 5, starting_after: 'i03' }, oldestFirst(items.id), rows, view)).toEqual({
      object: 'list',
      data: ['i04', 'i05', 'i06', 'i07'],
      has_more: false,
    });
    expect(await lightList({ limit: 2 }, oldestFirst(items.id), rows, view)).toEqual({
      object: 'list',
      data: ['i01', 'i02'],
      has_more: true,
    });
  });
});
