import type { ScheduledEvent } from 'aws-lambda';
import { loggedHandler } from '#shared/platform/logger.ts';
import { sweepWorkflowRuns } from '#shared/workflows/engine/watchdog.ts';

/**
 * Schedule `workflow-watchdog` (locally also run at start-up): moves unfinished workflow runs on: sends
 * ready nodes whose message was lost, takes over expired leases, fails what is past the run's deadline.
 */
export const handler = loggedHandler(
  async (_event?: Pick<ScheduledEvent, 'id'>): Promise<void> => {
    await sweepWorkflowRuns();
  },
  (event) => ({ eventId: event?.id }),
);
