import { defineConfig } from 'vitest/config';

/**
 * One project per kind of test (README, "Development"): `npm run test:unit` runs the unit projects
 * alone, `npm test` every project. Globs stay general: new files land in their folder's project.
 */
export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    projects: [
      {
        extends: true,
        // Pure logic with mocked AWS clients: one module graph per thread, shared by its files.
        test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads', isolate: false },
      },
      {
        extends: true,
        // The dashboard's pure modules, in processes: the time formatter's tests set TZ, which a worker
        // thread does not apply.
        test: { name: 'ui-modules', include: ['ui/src/**/*.test.ts'], pool: 'forks' },
      },
      {
        extends: true,
        // The CDK stack and the bundles (esbuild): each file synthesises or bundles on its own.
        test: { name: 'infra', include: ['test/infra/**/*.test.ts'], pool: 'forks' },
      },
      {
        extends: true,
        // Repositories and the runtime's pieces against the embedded emulators.
        test: { name: 'integration', include: ['test/integration/**/*.test.ts'], pool: 'forks' },
      },
      {
        extends: true,
        // Routes through the local gateway.
        test: { name: 'e2e', include: ['test/e2e/**/*.test.ts'], pool: 'forks' },
      },
      {
        extends: true,
        // The dashboard in Chromium against the local gateway, one browser per file.
        // A test drives many steps of a page: its time limit is a user's session, not a unit test's.
        test: { name: 'ui', include: ['test/ui/**/*.test.ts'], pool: 'forks', testTimeout: 120_000 },
      },
    ],
  },
});
