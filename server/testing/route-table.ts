import type { Env, Hono } from 'hono';
import { inspectRoutes } from 'hono/dev';
import { expect } from 'vitest';

type TableRoute = { method: string; path: string };

/** A route table lists each method and path once. */
export function expectNoDuplicateRoutes(table: TableRoute[]) {
  const names = table.map((r) => `${r.method} ${r.path}`);
  expect(new Set(names).size).toBe(names.length);
}

/**
 * The surface an app really serves, one line per route: method, path padded to `pathWidth`,
 * then what the table says of it (`describe`), or NOT IN TABLE. What the reviewed snapshots hold.
 */
export function servedSurface<E extends Env, R extends TableRoute>(
  app: Hono<E>,
  table: R[],
  pathWidth: number,
  describe: (entry: R) => string | undefined,
) {
  return inspectRoutes(app)
    .filter((r) => !r.isMiddleware)
    .map((r) => {
      const entry = table.find((e) => e.method === r.method && e.path === r.path);
      return `${r.method.padEnd(6)} ${r.path.padEnd(pathWidth)} ${(entry && describe(entry)) ?? 'NOT IN TABLE'}`;
    });
}
