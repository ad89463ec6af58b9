import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openPostgres } from './client';

describe('the PostgreSQL pool', () => {
  it('runs its statements without JIT compilation (a generic plan of a page at 1M users compiled on every call)', async (ctx) => {
    ctx.skip(!process.env.DATABASE_URL, 'JIT is a PostgreSQL server feature: this runs on PostgreSQL (DATABASE_URL)');
    const database = openPostgres(process.env.DATABASE_URL!, { max: 1 });
    try {
      const rows = (await database.db.execute(sql`select current_setting('jit') as jit`)) as unknown as { jit: string }[];
      expect(rows[0]!.jit).toBe('off');
    } finally {
      await database.close();
    }
  });
});
