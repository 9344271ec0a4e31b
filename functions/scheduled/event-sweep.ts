import { sweepEvents } from '#shared/events/sweep.ts';

/** Schedule `event-sweep`: puts events their consumer never acknowledged on the bus again. */
export const handler = async (): Promise<void> => {
  await sweepEvents();
};
