import { vi } from 'vitest';
import { logger } from '#shared/platform/logger.ts';

/**
 * The error logs a test expects (a job dead-lettered on purpose, an injected failure): kept out of the
 * test output and handed back, so the test asserts them. Restore it at the end of the test.
 */
export function expectErrorLogs() {
  return vi.spyOn(logger, 'error').mockImplementation(() => undefined);
}

export const DEAD_LETTERED = 'Message failed for the last time: on to the dead-letter queue';
