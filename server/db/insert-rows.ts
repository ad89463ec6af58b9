import { getTableColumns, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Db } from './client';

/**
 * Thousands of rows in one INSERT with a single parameter: the rows as one JSON array, turned
 * back into rows by `jsonb_to_recordset`. Drizzle's multi-row insert binds every value of
 * every row, which at an import's batch sizes costs more CPU than the database's own work.
 * The columns are those of the first row (every row names the same ones); values go as JSON,
 * so only columns whose values JSON carries as they are stored (text, numbers, booleans,
 * jsonb) belong here.
 */
export async function insertRows<T extends PgTable>(db: Db, table: T, rows: T['$inferInsert'][]): Promise<void> {
  if (rows.length === 0) return;
  const columns = Object.entries(getTableColumns(table)).filter(([key]) => key in rows[0]!);
  const names = sql.join(
    columns.map(([, c]) => sql.identifier(c.name)),
    sql`, `,
  );
  const types = sql.join(
    columns.map(([, c]) => sql`${sql.identifier(c.name)} ${sql.raw(c.getSQLType())}`),
    sql`, `,
  );
  const json = JSON.stringify(
    rows.map((r) => Object.fromEntries(columns.map(([key, c]) => [c.name, (r as Record<string, unknown>)[key] ?? null]))),
  );
  await db.execute(sql`insert into ${table} (${names}) select ${names} from jsonb_to_recordset(${json}::jsonb) as r(${types})`);
}
