import type { ScheduledEvent } from 'aws-lambda';
import { evaluateMonitors } from '#shared/monitors/evaluate.ts';
import { readMonitorWindow } from '#shared/monitors/rollup-reader.ts';
import { loggedHandler } from '#shared/platform/logger.ts';

/**
 * Schedule `monitor-evaluation`, every minute: evaluates every active monitor over the rollups at the
 * schedule's time (a retried run evaluates the same minute again, which changes nothing twice). A run
 * in which some monitors failed fails after evaluating the others, so the schedule's error alarm tells
 * the operator.
 */
export const handler = loggedHandler(
  async (event: Pick<ScheduledEvent, 'time'> & Partial<Pick<ScheduledEvent, 'id'>>): Promise<void> => {
    const scheduled = Date.parse(event.time);
    const { failed } = await evaluateMonitors(
      readMonitorWindow,
      Number.isNaN(scheduled) ? Date.now() : scheduled,
    );
    if (failed) throw new Error(`${failed} monitors could not be evaluated`);
  },
  (event) => ({ eventId: event.id }),
);
