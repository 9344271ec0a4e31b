import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // ui/src tests: the dashboard's pure modules (its browser tests are in test/ui).
    include: ['test/**/*.test.ts', 'ui/src/**/*.test.ts'],
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
