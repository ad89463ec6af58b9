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
  session: { prepareQuery(query: Query, fields: undefined, name: string, arrayMode: boolean): { execute(): Promise<unknown> } };
  dialect: { sqlToQuery(query: SQL): Query };
}

/**
 * `db.execute(query)` as a prepared statement: PostgreSQL parses and plans it once per
 * connection (postgres.js keeps prepared statements by their text), not on every call.
 * Only for hot statements whose text never varies (values are parameters): each distinct
 * text stays prepared on every connection for its lifetime.
 */
export function executePrepared(db: Db, name: string, query: SQL): Promise<unknown> {
  const d = db as unknown as DbInternals;
  return d.session.prepareQuery(d.dialect.sqlToQuery(query), undefined, name, false).execute();
}
