import { defineConfig } from 'vitest/config';

/**
 * `npm run test:clerk-nextjs`: Clerk's Next.js quickstart (examples/clerk-nextjs-quickstart/)
 * against a fresh Latchkey in Chromium. Its own servers and a `next build`: a few minutes.
 */
export default defineConfig({
  test: {
    include: ['examples/*.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 180_000,
    hookTimeout: 600_000,
  },
});
