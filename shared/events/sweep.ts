import { logger } from '#shared/platform/logger.ts';
import { putDetails } from './emit.ts';
import { countSweep, pendingEvents, uncountSweep } from './store.ts';

/**
 * Puts unacknowledged events on the bus again: those older than EVENT_REDELIVERY_AFTER_SECONDS (default
 * 120, enough for the fan-out to have received an event the bus accepted), each until the bus accepted
 * it MAX_SWEEPS times (a refused put does not count: a bus outage abandons nothing). Run on a schedule
 * in AWS, at start-up and on a timer locally.
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
  const pending = await pendingEvents(new Date(now.getTime() - redeliveryAfterSeconds() * 1000), SWEEP_PAGE);
  const outcomes = await Promise.all(pending.map(({ detail }) => countSweep(detail, MAX_SWEEPS)));
  const due = pending.filter((_, index) => outcomes[index] === 'due').map(({ detail }) => detail);
  const refused = due.length ? await putDetails(due) : [];
  // Only a put the bus accepted counts towards giving the event up.
  await Promise.all(refused.map(uncountSweep));
  const result = {
    found: pending.length,
    put: due.length - refused.length,
    abandoned: outcomes.filter((outcome) => outcome === 'abandoned').length,
  };
  if (result.abandoned)
    logger.error('Events abandoned after repeated sweeps', { abandoned: result.abandoned });
  if (result.found) logger.info('Event sweep', { ...result });
  return result;
}

/** EVENT_REDELIVERY_AFTER_SECONDS: a number >= 0; unset, empty or anything else is the default. */
function redeliveryAfterSeconds(): number {
  const raw = process.env[EVENT_REDELIVERY_AFTER_ENV]?.trim();
  const setting = raw ? Number(raw) : Number.NaN;
  return Number.isFinite(setting) && setting >= 0 ? setting : DEFAULT_REDELIVERY_AFTER_SECONDS;
}
