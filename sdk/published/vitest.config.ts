import { defineConfig } from 'vitest/config';

/** `npm run sdk:published`: the SDKs as npm publishes them, in a project outside the repository (published.spec.ts). */
export default defineConfig({
  test: {
    include: ['sdk/published/*.spec.ts'],
    pool: 'forks',
    testTimeout: 60_000,
    hookTimeout: 240_000,
  },
});
