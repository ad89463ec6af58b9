import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client';
import { rowsOf } from './rows';
import { Bound, executeShape, placeholdersOf, sqlOf } from './prepared';

/**
 * Independent writes of one transaction sent as one statement, each a data-modifying CTE
 * (`with w0 as (insert …), w1 as (update … returning *) select …`): a sign-in's dozen writes
 * cost one round trip and one statement instead of one each. The writes see the snapshot
 * taken before the statement, not each other's rows (a foreign key to a row inserted beside
 * it is checked at the statement's end and holds); no two may change the same row.
 *
 * Each module says what its piece writes as a `Part`; the caller sends the parts together.
 * The statement's text depends only on the parts' shapes (values are parameters). When every
 * piece is a statement (db/prepared.ts `statement`), that text is built once per combination
 * of statements and prepared, and a call only gathers the values; otherwise it is built on
 * each call and the statement cache prepares it like any recurring one.
 */
export interface Part {
  /** Written and forgotten. */
  writes?: (Stmt | null)[];
  /** Writes ending in `returning …` whose first row comes back (as json; null when none). */
  returning?: Record<string, Stmt>;
  /** Scalar expressions answered beside them (reading the tables as they stood before the statement). */
  reads?: Record<string, Stmt>;
  /** Runs once the statement is done, in the same transaction, with this part's answers. */
  after?: (db: Db, answers: Record<string, unknown>) => Promise<unknown>;
}

/**
 * A part's write or read: a `sql` template, or a statement with its values (db/prepared.ts).
 * When every piece is a statement, the whole text is built once per combination of them.
 */
type Stmt = SQL | Bound;

interface Piece {
  /** A write (a CTE), a write whose first row is answered (a CTE and its answer), or a read (an answer). */
  kind: 'write' | 'returning' | 'read';
  /**
   * Its name in the text, by position so that the text stays the same from one call to the
   * next: `w<part>_<n>` for a write, `r<part>_<name>` for a returning write (answered as
   * `a<part>_<name>`), `a<part>_<name>` for a read.
   */
  alias: string;
  stmt: Stmt;
}

/** The one statement of the pieces, each piece's text given by `textOf`. */
function together(pieces: Piece[], textOf: (p: Piece) => SQL): SQL {
  const ctes: SQL[] = [];
  const answers: SQL[] = [];
  for (const p of pieces) {
    const alias = sql.raw(p.alias);
    if (p.kind === 'read') answers.push(sql`${textOf(p)} as ${alias}`);
    else ctes.push(sql`${alias} as (${textOf(p)})`);
    if (p.kind === 'returning') answers.push(sql`(select to_json(x) from ${alias} x limit 1) as ${sql.raw(`a${p.alias.slice(1)}`)}`);
  }
  const select = answers.length ? sql.join(answers, sql`, `) : sql`1 as one`;
  return ctes.length ? sql`with ${sql.join(ctes, sql`, `)} select ${select}` : sql`select ${select}`;
}

export async function writeTogether(db: Db, parts: Part[]): Promise<Record<string, unknown>[]> {
  const pieces: Piece[] = [];
  parts.forEach((p, i) => {
    (p.writes ?? []).forEach((w, j) => {
      if (w) pieces.push({ kind: 'write', alias: `w${i}_${j}`, stmt: w });
    });
    for (const [name, w] of Object.entries(p.returning ?? {})) pieces.push({ kind: 'returning', alias: `r${i}_${name}`, stmt: w });
    for (const [name, r] of Object.entries(p.reads ?? {})) pieces.push({ kind: 'read', alias: `a${i}_${name}`, stmt: r });
  });
  let row: Record<string, unknown> = {};
  if (pieces.length > 0) {
    let result: unknown;
    if (pieces.every((p) => p.stmt instanceof Bound)) {
      // Every piece a statement: the text is built once for this combination, each piece's values named by its alias.
      let key = 'together';
      const values: Record<string, unknown> = {};
      for (const p of pieces) {
        const b = p.stmt as Bound;
        key += `,${p.alias}=${b.statement.key}`;
        for (const name in b.values) values[`${p.alias}.${name}`] = b.values[name];
      }
      result = await executeShape(
        db,
        key,
        () => together(pieces, (p) => (p.stmt as Bound).statement.build(placeholdersOf(`${p.alias}.`))),
        values,
      );
    } else {
      result = await db.execute(together(pieces, (p) => (p.stmt instanceof Bound ? sqlOf(p.stmt) : p.stmt)));
    }
    [row = {}] = rowsOf<Record<string, unknown>>(result);
  }
  const out = parts.map((p, i) => {
    const mine: Record<string, unknown> = {};
    for (const name of [...Object.keys(p.returning ?? {}), ...Object.keys(p.reads ?? {})]) mine[name] = row[`a${i}_${name}`];
    return mine;
  });
  for (const [i, p] of parts.entries()) if (p.after) await p.after(db, out[i]!);
  return out;
}

/** A json/jsonb value read back: postgres.js and PGlite parse it; text is parsed here. */
export const fromJson = <T>(value: unknown): T => (typeof value === 'string' ? (JSON.parse(value) as T) : (value as T));

/** A table's row from its `to_json` (snake_case keys), as Drizzle would have mapped it; null stays null. */
export function rowFromJson<T extends PgTable>(table: T, value: unknown): T['$inferSelect'] | null {
  const json = fromJson<Record<string, unknown> | null>(value);
  if (!json) return null;
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const v = json[column.name];
    row[key] = v === null || v === undefined ? null : column.mapFromDriverValue(v);
  }
  return row as T['$inferSelect'];
}
