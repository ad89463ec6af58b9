import { sql, type Query, type SQL } from 'drizzle-orm';
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
      /** Named: prepared on each connection (postgres.js); undefined: the statement cache decides. */
      name: string | undefined,
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

/** The values of a statement's text: placeholders while it is built once, or the values themselves. */
export type Params<K extends string> = { readonly [P in K]: unknown };

/** A statement given its values for one call (statement() makes it); writeTogether and runStatement send it. */
export class Bound {
  constructor(
    readonly statement: Statement<string>,
    readonly values: Readonly<Record<string, unknown>>,
  ) {}
}

export interface Statement<K extends string> {
  /** Names the text among the texts built once (a name and a serial number: names need not be unique). */
  readonly key: string;
  /** The text, with `v.<name>` where each value goes: placeholders when built once, the values inline for sqlOf. */
  readonly build: (v: Params<K>) => SQL;
  (values: Record<K, unknown>): Bound;
}

let serial = 0;

/**
 * A hand-written statement whose text is built once: `build` writes it with `v.<name>` where a
 * value goes (no computing on a value there: give the computed value its own name), and each
 * call gives the values (`stmt({ id, now })`). Drizzle turns the text into SQL and parameter
 * slots once per shape, not on every call (~100-250 µs of CPU for a large statement), and
 * the statement is prepared on each connection. Statements sent together (db/together.ts)
 * make one text per combination of statements, built once too.
 */
export function statement<K extends string>(name: string, build: (v: Params<K>) => SQL): Statement<K> {
  const stmt = ((values: Record<K, unknown>) => new Bound(stmt as unknown as Statement<string>, values)) as Statement<K>;
  return Object.assign(stmt, { key: `${name}#${++serial}`, build });
}

/** The statement as a plain `sql` template with its values inline (to EXPLAIN it, or to send it inside another). */
export const sqlOf = (b: Bound): SQL => b.statement.build(b.values);

/** Placeholders for a statement's values, each named `prefix` + its name. */
export const placeholdersOf = (prefix: string): Params<string> =>
  new Proxy({}, { get: (_, name) => sql.placeholder(prefix + String(name)) }) as Params<string>;

/** Texts built once, by shape, per Drizzle dialect (a handle and its transactions share one). */
const built = new WeakMap<object, Map<string, Query>>();
/** Shapes kept; past this, a new shape is built on each call and the statement cache decides whether to prepare it. */
const MAX_SHAPES = 128;

/**
 * Sends the text of shape `key` (built by `build`, with placeholders, the first time) with
 * `values` for its placeholders, on `db` (a handle or a transaction); answers as `db.execute`.
 */
export function executeShape(db: Db, key: string, build: () => SQL, values: Record<string, unknown>): Promise<unknown> {
  const d = db as unknown as DbInternals;
  let shapes = built.get(d.dialect);
  if (!shapes) built.set(d.dialect, (shapes = new Map()));
  let query = shapes.get(key);
  const kept = query !== undefined || shapes.size < MAX_SHAPES;
  if (!query) {
    query = d.dialect.sqlToQuery(build());
    if (kept) shapes.set(key, query);
  }
  return d.session.prepareQuery(query, undefined, kept ? key : undefined, false).execute(values);
}

/** Sends one statement (statement()); answers as `db.execute`. */
export const runStatement = (db: Db, b: Bound): Promise<unknown> =>
  executeShape(db, b.statement.key, () => b.statement.build(placeholdersOf('')), b.values);
