import { defineConfig } from '@playwright/test';
import path from 'node:path';
import { E2E_BASE_URL, RUN_DIR } from './e2e/support/server';

/**
 * Browser tests against a real `npm start` on a fresh embedded store (e2e/support/global-setup.ts),
 * in Debian's Chromium: never a downloaded browser.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  fullyParallel: false,
  workers: 1,
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 15_000 },
  reporter: [['list']],
  globalSetup: './e2e/support/global-setup.ts',
  outputDir: path.join(RUN_DIR, 'results'),
  projects: [
    // The first-run journey claims the console with the link the server printed; the other
    // specs mint their own setup links (which replace an unused one), so they run after it.
    { name: 'first-run', testMatch: 'operator-journey.spec.ts' },
    { name: 'features', testIgnore: 'operator-journey.spec.ts', dependencies: ['first-run'] },
  ],
  use: {
    baseURL: E2E_BASE_URL,
    locale: 'en-US',
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
