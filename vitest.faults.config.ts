import { defineConfig } from 'vitest/config';

/**
 * `npm run test:faults`: the fault suite (faults/, issue 46). Each file starts its own
 * PostgreSQL, Redis and server processes; files run one after another, so their timings are
 * not each other's load.
 */
export default defineConfig({
  test: {
    include: ['faults/**/*.faults.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 300_000,
  },
});
