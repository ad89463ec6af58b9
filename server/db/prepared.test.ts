import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPglite, type Database } from './client';
import { preparedSql } from './prepared';

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
