import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type Database } from './client';
import { preparedSql, runStatement, sqlOf, statement } from './prepared';
import { writeTogether } from './together';

/**
 * preparedSql (db/prepared.ts) reaches into Drizzle's internals: `db.session.prepareQuery(query,
 * fields, name, arrayMode)` and `db.dialect.sqlToQuery(sql)`, which no public API offers. These
 * tests pin them, so a Drizzle upgrade that moves or reshapes them fails here, loudly, instead of
 * the hot paths (token refresh) failing at run time.
 */
const CHECKED_DRIZZLE = '0.45.4';

const drizzleVersion = () => {
  const entry = createRequire(import.meta.url).resolve('drizzle-orm');
  let dir = dirname(entry);
  while (!dir.endsWith('drizzle-orm')) dir = dirname(dir);
  return (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version;
};

let database: Database;
beforeAll(async () => {
  database = await openPglite(null);
});
afterAll(() => database.close());

describe('the Drizzle internals db/prepared.ts relies on', () => {
  it('is the Drizzle version they were checked against (re-check preparedSql, then move this pin)', () => {
    expect(drizzleVersion()).toBe(CHECKED_DRIZZLE);
  });

  it('db.dialect.sqlToQuery turns a sql template into text and parameters, placeholders kept by name', () => {
    const d = database.db as unknown as { dialect: { sqlToQuery(q: unknown): { sql: string; params: unknown[] } } };
    expect(typeof d.dialect.sqlToQuery).toBe('function');
    const q = d.dialect.sqlToQuery(sql`select ${sql.placeholder('a')}::int + ${2}::int as n`);
    expect(q.sql).toBe('select $1::int + $2::int as n');
    expect(q.params).toHaveLength(2);
    expect(q.params[1]).toBe(2);
  });

  it('db.session.prepareQuery prepares that query, and preparedSql runs it with named values, once built per handle', async () => {
    const d = database.db as unknown as { session: { prepareQuery: unknown } };
    expect(typeof d.session.prepareQuery).toBe('function');
    let builds = 0;
    const stmt = preparedSql('prepared_test_sum', () => {
      builds += 1;
      return sql`select ${sql.placeholder('a')}::int + ${sql.placeholder('b')}::int as n`;
    });
    const run = async (a: number, b: number) => (await stmt(database.db).execute({ a, b })) as { rows?: { n: number }[] } | { n: number }[];
    const rowsOf = (r: Awaited<ReturnType<typeof run>>) => (Array.isArray(r) ? r : (r.rows ?? []));
    expect(rowsOf(await run(1, 2))).toEqual([{ n: 3 }]);
    expect(rowsOf(await run(40, 2))).toEqual([{ n: 42 }]);
    expect(builds).toBe(1);
  });
});

describe('statement(): a hand-written statement whose text is built once', () => {
  const rowsOf = (r: unknown) => (Array.isArray(r) ? r : ((r as { rows?: unknown[] }).rows ?? []));
  let builds = 0;
  const sum = statement<'a' | 'b'>('prepared_test_statement_sum', (v) => {
    builds += 1;
    return sql`select ${v.a}::int + ${v.b}::int as n`;
  });
  // Reads of a part are scalar expressions.
  const plus = statement<'a' | 'b'>('prepared_test_statement_plus', (v) => {
    builds += 1;
    return sql`(${v.a}::int + ${v.b}::int)`;
  });
  const times10 = statement<'n'>('prepared_test_statement_times10', (v) => {
    builds += 1;
    return sql`(${v.n}::int * 10)`;
  });

  it('runs with its values, built once however many calls and handles (a transaction shares its handle’s text)', async () => {
    builds = 0;
    expect(rowsOf(await runStatement(database.db, sum({ a: 1, b: 2 })))).toEqual([{ n: 3 }]);
    expect(rowsOf(await runStatement(database.db, sum({ a: 40, b: 2 })))).toEqual([{ n: 42 }]);
    const inTx = await database.db.transaction(async (tx) => rowsOf(await runStatement(tx, sum({ a: 5, b: 5 }))));
    expect(inTx).toEqual([{ n: 10 }]);
    expect(builds).toBe(1);
  });

  it('sqlOf gives the same statement with its values inline', async () => {
    expect(rowsOf(await database.db.execute(sqlOf(sum({ a: 2, b: 3 }))))).toEqual([{ n: 5 }]);
  });

  it('writeTogether: statements sent together make one text per combination, built once, each with its own values', async () => {
    builds = 0;
    const send = (a: number, n: number) =>
      writeTogether(database.db, [{ reads: { sum: plus({ a, b: 1 }) } }, { reads: { made: times10({ n }), again: plus({ a: n, b: n }) } }]);
    const first = await send(1, 2);
    expect(first).toEqual([{ sum: 2 }, { made: 20, again: 4 }]);
    const second = await send(7, 3);
    expect(second).toEqual([{ sum: 8 }, { made: 30, again: 6 }]);
    // Each piece once for the combination's text; nothing on the second call.
    expect(builds).toBe(3);
    // Another combination (one part fewer) is a text of its own.
    expect(await writeTogether(database.db, [{ reads: { sum: plus({ a: 1, b: 1 }) } }])).toEqual([{ sum: 2 }]);
    expect(builds).toBe(4);
  });

  it('writeTogether: a sql template among the statements sends them all with their values inline', async () => {
    const answers = await writeTogether(database.db, [{ reads: { sum: plus({ a: 2, b: 2 }), plain: sql`(select 7)` } }]);
    expect(answers).toEqual([{ sum: 4, plain: 7 }]);
  });
});
