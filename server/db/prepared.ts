import type { Query, SQL } from 'drizzle-orm';
import type { Db } from './client';

/**
 * A prepared statement built once per database handle. Hot paths use these: building a
 * Drizzle query costs ~250 µs of CPU, and an unprepared one is planned again each time.
 */
export function prepared<S>(build: (db: Db) => S): (db: Db) => S {
  const byDb = new WeakMap<Db, S>();
  return (db) => {
    let stmt = byDb.get(db);
    if (!stmt) byDb.set(db, (stmt = build(db)));
    return stmt;
  };
}

interface DbInternals {
  session: {
    prepareQuery(
      query: Query,
      fields: undefined,
      name: string,
      arrayMode: boolean,
    ): { execute(values?: Record<string, unknown>): Promise<unknown> };
  };
  dialect: { sqlToQuery(query: SQL): Query };
}

/**
 * A hand-written statement (`db.execute`'s kind) as a prepared statement: built once per
 * database handle, its values given on each call by the names of its `sql.placeholder`s.
 * PostgreSQL parses and plans it once per connection (postgres.js keeps prepared statements
 * by their text), and no query is built per call (~250 µs of CPU for a large one). Only for
 * hot statements: each distinct text stays prepared on every connection for its lifetime.
 */
export function preparedSql(name: string, build: () => SQL): (db: Db) => { execute(values: Record<string, unknown>): Promise<unknown> } {
  return prepared((db) => {
    const d = db as unknown as DbInternals;
    return d.session.prepareQuery(d.dialect.sqlToQuery(build()), undefined, name, false);
  });
}
