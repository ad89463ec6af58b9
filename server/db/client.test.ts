import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openPostgres } from './client';

describe('the PostgreSQL pool', () => {
  it('runs its statements without JIT compilation or parallel workers (a generic plan of a page at 1M users compiled on every call)', async (ctx) => {
    ctx.skip(!process.env.DATABASE_URL, 'JIT is a PostgreSQL server feature: this runs on PostgreSQL (DATABASE_URL)');
    const database = openPostgres(process.env.DATABASE_URL!, { max: 1 });
    try {
      const rows = (await database.db.execute(
        sql`select current_setting('jit') as jit, current_setting('max_parallel_workers_per_gather') as workers`,
      )) as unknown as { jit: string; workers: string }[];
      expect(rows[0]).toEqual({ jit: 'off', workers: '0' });
    } finally {
      await database.close();
    }
  });
});
