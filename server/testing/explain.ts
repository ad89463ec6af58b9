import { Placeholder, sql, type Query } from 'drizzle-orm';
import type { Db } from '../db/client';

/**
 * The plan PostgreSQL picks for a statement with sequential scans switched off: a plan that
 * still scans a table sequentially means no index can serve that part of it.
 */
export function explain(db: Db, text: string): Promise<string> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`set local enable_seqscan = off`);
    const res = (await tx.execute(sql.raw(`explain ${text}`))) as unknown as { rows?: Record<string, string>[] } | Record<string, string>[];
    return (Array.isArray(res) ? res : (res.rows ?? [])).map((r) => Object.values(r)[0]).join('\n');
  });
}

/**
 * The plan of a built query ({sql, params}, as toSQL() or a prepared statement's getQuery()
 * give it), its parameters inlined as literals (EXPLAIN takes no bind parameters here) and
 * placeholders taken from `values` by name.
 */
export function explainQuery(db: Db, query: Query, values: Record<string, unknown> = {}): Promise<string> {
  const literal = (v: unknown) => `'${String(v).replace(/'/g, "''")}'`;
  const valueOf = (p: unknown) => (p instanceof Placeholder ? values[p.name] : p);
  return explain(
    db,
    query.sql.replace(/\$(\d+)/g, (_, n: string) => literal(valueOf(query.params[Number(n) - 1]))),
  );
}
