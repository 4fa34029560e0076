import { defineConfig } from '@playwright/test';

/**
 * Browser stories against `tb serve`. Chromium comes from Debian
 * (`apt-get install -y chromium`), never from a Playwright download. Each test
 * starts its own server on its own data folder (see e2e/tb-server.ts), so the
 * renderer must be built first: `npm run test:e2e` runs `electron-vite build`.
 */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  outputDir: 'test-results',
  timeout: 60_000,
  expect: { timeout: 15_000 },
  // Two cores shared with the engine under test: one browser at a time.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: [['list']],
  use: {
    headless: true,
    viewport: { width: 1440, height: 900 },
    acceptDownloads: true,
    trace: 'off',
    launchOptions: {
      executablePath: '/usr/bin/chromium',
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    },
  },
});
