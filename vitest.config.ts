import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['server/**/*.test.ts', 'bench/**/*.test.ts', 'i18n/**/*.test.ts', 'messages/**/*.test.ts', 'lib/**/*.test.ts', 'sdk/**/*.test.ts', 'sdk/**/*.test.tsx'],
    pool: 'forks',
    // Migrates once per run; each test file's database is a copy (server/testing/database.ts).
    globalSetup: ['server/testing/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
