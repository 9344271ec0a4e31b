import { logger } from '#shared/platform/logger.ts';
import { putDetails } from './emit.ts';
import { countSweep, pendingEvents } from './store.ts';

/**
 * Puts unacknowledged events on the bus again: those older than EVENT_REDELIVERY_AFTER_SECONDS (default
 * 120, enough for the fan-out to have received an event the bus accepted), each at most MAX_SWEEPS
 * times. Run on a schedule in AWS, at start-up and on a timer locally.
 */
export const EVENT_REDELIVERY_AFTER_ENV = 'EVENT_REDELIVERY_AFTER_SECONDS';
export const DEFAULT_REDELIVERY_AFTER_SECONDS = 120;
export const MAX_SWEEPS = 24;
/** Events read per index shard and run; the next run takes the rest. */
const SWEEP_PAGE = 250;

export interface SweepResult {
  found: number;
  put: number;
  abandoned: number;
}

export async function sweepEvents(now = new Date()): Promise<SweepResult> {
  const setting = Number(process.env[EVENT_REDELIVERY_AFTER_ENV]);
  const afterSeconds = Number.isFinite(setting) && setting >= 0 ? setting : DEFAULT_REDELIVERY_AFTER_SECONDS;
  const pending = await pendingEvents(new Date(now.getTime() - afterSeconds * 1000), SWEEP_PAGE);
  const kept = await Promise.all(pending.map(({ detail }) => countSweep(detail, MAX_SWEEPS)));
  const due = pending.filter((_, index) => kept[index]).map(({ detail }) => detail);
  const stillOut = due.length ? await putDetails(due) : 0;
  const result = {
    found: pending.length,
    put: due.length - stillOut,
    abandoned: pending.length - due.length,
  };
  if (result.abandoned)
    logger.error('Events abandoned after repeated sweeps', { abandoned: result.abandoned });
  if (result.found) logger.info('Event sweep', { ...result });
  return result;
}
