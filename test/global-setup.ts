import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Names the run's temporary folder once it exists: every project runs this setup (they extend the root). */
const RUN_FOLDER_ENV = 'PROMPTOPS_TEST_RUN_TMPDIR';

/**
 * One temporary folder for the whole run, removed when it ends: vitest stops its workers with a signal,
 * so what lives as long as a worker (the shared local services' scratch folders, the worker's emulators,
 * Chromium's profile) never runs an exit handler. The workers, and every process they start, inherit
 * TMPDIR, which `os.tmpdir()`, s3rver, Playwright and Chromium all follow.
 */
export default function setup(): (() => void) | undefined {
  if (process.env[RUN_FOLDER_ENV]) return undefined;
  const folder = mkdtempSync(join(tmpdir(), 'promptops-test-run-'));
  process.env[RUN_FOLDER_ENV] = folder;
  process.env.TMPDIR = folder;
  return () => rmSync(folder, { recursive: true, force: true });
}
