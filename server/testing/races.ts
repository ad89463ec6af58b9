import { it } from 'vitest';

const RACES_NEED_POSTGRES =
  'a race of transactions proves nothing on PGlite (one transaction at a time): it runs on PostgreSQL (DATABASE_URL)';

/**
 * A test of concurrent transactions (a unique index, a row lock, SKIP LOCKED holding under a
 * race): it runs on PostgreSQL only and is skipped, with that note, on embedded PGlite.
 */
export function raceTest(name: string, fn: () => Promise<void>, timeout?: number) {
  it(
    name,
    async (ctx) => {
      ctx.skip(!process.env.DATABASE_URL, RACES_NEED_POSTGRES);
      await fn();
    },
    timeout,
  );
}
