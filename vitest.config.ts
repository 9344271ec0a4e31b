import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

/**
 * End-to-end files that only call routes of their own workspaces (the default `startTestService()`, no
 * schedules or process-wide settings): they share one local service per worker, each with a workspace and
 * key of its own (test/support/local-service.ts), and `messaging.events` / `deadLetters` hold only their
 * workspaces' (their own and `otherWorkspaceKey` ones). A file that needs a service of its own (options,
 * `runSchedules()`, a global provider or logger level) stays out, and so does one that calls
 * `countItems()` itself: a Scan reads the whole table, and the worker's table holds every file's data.
 */
const SHARED_SERVICE_FILES = [
  'analytics',
  'costs',
  'dataset-append',
  'dataset-external-ids',
  'folder-filters',
  'folder-refs',
  'folders',
  'gateway-errors',
  'monitors',
  'openapi',
  'otlp-ai-sdk',
  'otlp-exporters',
  'otlp-langfuse',
  'otlp-openinference',
  'probing-defects',
  'prompt-isolation',
  'prompt-labels',
  'prompt-snippet-usage',
  'prompt-template-patch',
  'prompt-versions',
  'provider-keys',
  'readme-try-it',
  'replay',
  'report-definitions',
  'report-probing',
  'report-results',
  'report-runs',
  'request-search',
  'request-search-cursor',
  'sdk-skills',
  'sdk-track',
  'skill-collection-archives',
  'skill-collection-edges',
  'skill-collection-uploads',
  'skill-collections',
  'tool-refs',
  'tool-test-execute',
  'tools',
  'trace-list',
  'track',
  'workflow-node-runs',
  'workflows',
].map((name) => `test/e2e/${name}.test.ts`);

/**
 * Browser files that start the local service with options (`describeUi(name, body, options)`) or call
 * `runSchedules()` (which runs over every workspace's data): they get a service of their own; the other
 * browser files share the worker's, as the e2e-shared files do.
 */
const UI_OWN_SERVICE_FILES = ['monitors', 'shell', 'webhooks'].map((name) => `test/ui/${name}.test.ts`);

/**
 * One project per kind of test (README, "Development"): `npm run test:unit` runs the unit projects
 * alone, `npm test` every project. Globs stay general: new files land in their folder's project.
 */
export default defineConfig({
  test: {
    setupFiles: ['test/setup.ts'],
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    reporters: ['default', './test/support/summary-reporter.ts'],
    // Both cores of a 2-core CI runner (vitest's default leaves one idle): files of a project share no
    // port (0 everywhere) and no directory (each service has its own scratch directory).
    maxWorkers: Math.max(2, availableParallelism() - 1),
    // Each project has a module graph of its own: without this, every project transforms the same sources
    // again, and every run starts from none. Kept in node_modules/.experimental-vitest-cache, keyed by the
    // file's content and the transform's configuration.
    experimental: { fsModuleCache: true },
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
        // Repositories and the runtime's pieces against the embedded emulators. Its processes keep the
        // packages loaded from file to file (test/setup.ts evaluates the project's modules afresh):
        // loading the AWS SDK again for each file was about 2 s of CPU. So do the e2e and ui projects'.
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        // Routes through the local gateway.
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          exclude: SHARED_SERVICE_FILES,
          pool: 'forks',
          isolate: false,
        },
      },
      {
        extends: true,
        // Routes through one local service per worker, shared by files that run one after another in it.
        test: {
          name: 'e2e-shared',
          include: SHARED_SERVICE_FILES,
          pool: 'forks',
          isolate: false,
          env: { PROMPTOPS_TEST_SERVICE: 'shared' },
        },
      },
      {
        extends: true,
        // The dashboard in Chromium against the local gateway: one browser per worker, shared by its
        // files (test/ui/support/browser.ts), and here one service per file.
        // A test drives many steps of a page: its time limit is a user's session, not a unit test's.
        test: {
          name: 'ui',
          include: UI_OWN_SERVICE_FILES,
          pool: 'forks',
          isolate: false,
          testTimeout: 120_000,
        },
      },
      {
        extends: true,
        // The other browser files: one browser and one local service per worker.
        test: {
          name: 'ui-shared',
          include: ['test/ui/**/*.test.ts'],
          exclude: UI_OWN_SERVICE_FILES,
          pool: 'forks',
          isolate: false,
          testTimeout: 120_000,
          env: { PROMPTOPS_TEST_SERVICE: 'shared' },
        },
      },
    ],
  },
});
