import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';

const include = [
  'server/**/*.test.ts',
  'bench/**/*.test.ts',
  'i18n/**/*.test.ts',
  'messages/**/*.test.ts',
  'lib/**/*.test.ts',
  'lib/**/*.test.tsx',
  'sdk/**/*.test.ts',
  'sdk/**/*.test.tsx',
];

/**
 * Test files that replace a module (vi.mock): a module another file already loaded in the
 * same worker would keep its real imports, so these run in a fresh process each.
 */
const mocking = ['server', 'bench', 'i18n', 'messages', 'lib', 'sdk'].flatMap((dir) =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.test\.tsx?$/.test(f) && !f.split(path.sep).includes('node_modules'))
    .map((f) => path.join(dir, f))
    .filter((f) => /\bvi\.(mock|doMock)\(/.test(readFileSync(f, 'utf8'))),
);

/** What every project shares (the global setup stays on the root, so it runs once). */
const common = { pool: 'forks' as const, testTimeout: 30_000, hookTimeout: 60_000, setupFiles: ['server/testing/next-environment.ts'] };
/** The app's `@/…` imports (tsconfig.json's paths), for tests of components. */
const resolve = { alias: [{ find: /^@\//, replacement: `${import.meta.dirname}/` }] };

export default defineConfig({
  test: {
    // Every core, not vitest's cores − 1: most files spend much of their time waiting
    // (password hashing threads, child processes, PostgreSQL), so two files fit on two cores.
    maxWorkers: availableParallelism(),
    // Migrates once per run; each test file's database is a copy (server/testing/database.ts).
    globalSetup: ['server/testing/global-setup.ts'],
    projects: [
      // A worker runs file after file without reloading the server's modules (seconds a file);
      // each file still opens its own database and harness.
      { resolve, test: { ...common, name: 'shared', include, exclude: [...configDefaults.exclude, ...mocking], isolate: false } },
      { resolve, test: { ...common, name: 'isolated', include: mocking, isolate: true } },
    ],
  },
});
