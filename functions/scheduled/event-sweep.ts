import type { ScheduledEvent } from 'aws-lambda';
import { sweepEvents } from '#shared/events/sweep.ts';
import { loggedHandler } from '#shared/platform/logger.ts';

/**
 * Schedule `event-sweep`: puts events their consumer never acknowledged on the bus again. A run that
 * gave events up fails after doing its work, so the schedule's error alarm tells the operator.
 */
export const handler = loggedHandler(
  async (_event?: Pick<ScheduledEvent, 'id'>): Promise<void> => {
    const { abandoned } = await sweepEvents();
    if (abandoned) throw new Error(`${abandoned} events were given up after repeated sweeps`);
  },
  (event) => ({ eventId: event?.id }),
);
