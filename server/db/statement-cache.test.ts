import { eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { processDatabase } from '../testing/processes';
import { openPostgres, type Database } from './client';
import { rowsOf } from './rows';
import { instances } from './schema';
import { StatementCache } from './statement-cache';

describe('StatementCache', () => {
  it('prepares a text the second time it is seen, and keeps it prepared', () => {
    const cache = new StatementCache(10);
    expect(cache.shouldPrepare('select $1')).toBe(false);
    expect(cache.shouldPrepare('select $1')).toBe(true);
    expect(cache.shouldPrepare('select $1')).toBe(true);
    expect(cache.size).toBe(1);
  });

  it('prepares no more than its limit of texts, and never a long one', () => {
    const cache = new StatementCache(2);
    for (const t of ['a $1', 'b $1', 'c $1']) cache.shouldPrepare(t);
    expect(['a $1', 'b $1', 'c $1'].map((t) => cache.shouldPrepare(t))).toEqual([true, true, false]);
    const long = `select ${'x'.repeat(5000)} where $1`;
    cache.shouldPrepare(long);
    expect(new StatementCache(10).shouldPrepare(long) || cache.shouldPrepare(long)).toBe(false);
    expect(new StatementCache(0).shouldPrepare('a $1')).toBe(false);
  });

  it('never prepares a search: a generic plan could not use the trigram indexes', () => {
    const cache = new StatementCache(10);
    const search = 'select "id" from "users" where "users"."first_name" ilike $1';
    expect([1, 2, 3].map(() => cache.shouldPrepare(search))).toEqual([false, false, false]);
    expect(cache.size).toBe(0);
  });
});

/** On one connection (max 1), so pg_prepared_statements shows what that connection holds. */
const pg = await processDatabase('statement-cache');

describe.skipIf(!pg.available)('prepared statements on PostgreSQL', () => {
  const opened: Database[] = [];
  const open = (preparedStatements?: number) => {
    const database = openPostgres(pg.dbUrl, { max: 1, preparedStatements });
    opened.push(database);
    return database;
  };
  const preparedTexts = async (database: Database) =>
    rowsOf<{ statement: string }>(await database.db.execute(sql`select statement from pg_prepared_statements`)).map((r) => r.statement);
  const lookup = (database: Database, id: string) => database.db.select({ id: instances.id }).from(instances).where(eq(instances.id, id));
  const lookupText = 'where "instances"."id" = $1';

  beforeAll(async () => {
    await pg.create();
    await open().migrate();
  });
  afterAll(async () => {
    for (const d of opened) await d.close();
    await pg.drop();
  });

  it('a recurring Drizzle query becomes a named prepared statement, in and out of transactions', async () => {
    const database = open();
    await lookup(database, 'ins_a');
    expect((await preparedTexts(database)).filter((t) => t.includes(lookupText))).toEqual([]);
    await lookup(database, 'ins_b');
    await lookup(database, 'ins_c');
    expect((await preparedTexts(database)).filter((t) => t.includes(lookupText))).toHaveLength(1);

    const inTx = (id: string) =>
      database.db.transaction((tx) => tx.select({ name: instances.name }).from(instances).where(eq(instances.id, id)));
    await inTx('ins_a');
    await inTx('ins_b');
    expect((await preparedTexts(database)).filter((t) => t.startsWith('select "name" from "instances"'))).toHaveLength(1);
  });

  it('DATABASE_PREPARED_STATEMENTS=0 sends a statement Drizzle did not prepare unnamed', async () => {
    const database = open(0);
    for (const id of ['ins_a', 'ins_b', 'ins_c']) await lookup(database, id);
    expect((await preparedTexts(database)).filter((t) => t.includes(lookupText))).toEqual([]);
  });
});
