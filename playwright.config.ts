// End-to-end tests: a fresh migrated database, the production build served by
// `next start` on a free port (e2e/global-setup.ts), and Chromium — the system one at
// /usr/bin/chromium when present, else Playwright's own. The `tour` project walks the
// demo that `npm start` runs (e2e/tour.spec.ts).
import { defineConfig } from '@playwright/test';
import fs from 'node:fs';

const SYSTEM_CHROMIUM = '/usr/bin/chromium';

export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  globalSetup: './e2e/global-setup.ts',
  // One server and one database for the run; specs seed their own uniquely named data.
  workers: 1,
  fullyParallel: false,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [['list'], ['html', { open: 'never' }]] : 'list',
  use: {
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: fs.existsSync(SYSTEM_CHROMIUM)
      ? {
          executablePath: SYSTEM_CHROMIUM,
          args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu', '--disable-dev-shm-usage'],
        }
      : {},
  },
  projects: [
    { name: 'chromium', use: { browserName: 'chromium' }, testIgnore: 'tour.spec.ts' },
    // The operator's tour against `sluice start` itself (demo coordinators and producer):
    // its own server and database (e2e/support/tour-server.ts), minutes rather than seconds.
    { name: 'tour', use: { browserName: 'chromium' }, testMatch: 'tour.spec.ts' },
  ],
});
