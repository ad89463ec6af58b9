import { getTableColumns, sql, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client';
import { rowsOf } from './rows';

/**
 * Independent writes of one transaction sent as one statement, each a data-modifying CTE
 * (`with w0 as (insert …), w1 as (update … returning *) select …`): a sign-in's dozen writes
 * cost one round trip and one statement instead of one each. The writes see the snapshot
 * taken before the statement, not each other's rows (a foreign key to a row inserted beside
 * it is checked at the statement's end and holds); no two may change the same row.
 *
 * Each module says what its piece writes as a `Part`; the caller sends the parts together.
 * The statement's text depends only on the parts' shapes (values are parameters), so the
 * statement cache prepares it like any recurring one.
 */
export interface Part {
  /** Written and forgotten. */
  writes?: (SQL | null)[];
  /** Writes ending in `returning …` whose first row comes back (as json; null when none). */
  returning?: Record<string, SQL>;
  /** Scalar expressions answered beside them (reading the tables as they stood before the statement). */
  reads?: Record<string, SQL>;
  /** Runs once the statement is done, in the same transaction, with this part's answers. */
  after?: (db: Db, answers: Record<string, unknown>) => Promise<unknown>;
}

export async function writeTogether(db: Db, parts: Part[]): Promise<Record<string, unknown>[]> {
  const ctes: SQL[] = [];
  const answers: SQL[] = [];
  // Names by position, so the text stays the same from one call to the next.
  parts.forEach((p, i) => {
    (p.writes ?? []).forEach((w, j) => {
      if (w) ctes.push(sql`${sql.raw(`w${i}_${j}`)} as (${w})`);
    });
    for (const [name, w] of Object.entries(p.returning ?? {})) {
      const cte = sql.raw(`r${i}_${name}`);
      ctes.push(sql`${cte} as (${w})`);
      answers.push(sql`(select to_json(x) from ${cte} x limit 1) as ${sql.raw(`a${i}_${name}`)}`);
    }
    for (const [name, r] of Object.entries(p.reads ?? {})) answers.push(sql`${r} as ${sql.raw(`a${i}_${name}`)}`);
  });
  let row: Record<string, unknown> = {};
  if (ctes.length > 0 || answers.length > 0) {
    const select = answers.length ? sql.join(answers, sql`, `) : sql`1 as one`;
    [row = {}] = rowsOf<Record<string, unknown>>(
      await db.execute(ctes.length ? sql`with ${sql.join(ctes, sql`, `)} select ${select}` : sql`select ${select}`),
    );
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
