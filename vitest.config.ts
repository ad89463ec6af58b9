import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'bench/**/*.test.ts', 'i18n/**/*.test.ts', 'messages/**/*.test.ts', 'lib/**/*.test.ts', 'sdk/**/*.test.ts', 'sdk/**/*.test.tsx'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
