import type { ScheduledEvent } from 'aws-lambda';

/**
 * Fixture schedule: counts its runs and the most that ran at once, keeps the events it got, waits for
 * `gate` when one is set, and throws while `fail` is set. State is shared through globalThis, so the
 * test sees it whichever way the module was loaded.
 */
const PROBE = Symbol.for('promptops.test.scheduleProbe');

export interface ScheduleProbe {
  runs: number;
  active: number;
  maxActive: number;
  events: ScheduledEvent[];
  gate?: Promise<void>;
  fail?: boolean;
}

const shared = globalThis as { [PROBE]?: ScheduleProbe };
shared[PROBE] ??= { runs: 0, active: 0, maxActive: 0, events: [] };
export const scheduleProbe: ScheduleProbe = shared[PROBE];

export async function handler(event: ScheduledEvent): Promise<void> {
  scheduleProbe.active++;
  scheduleProbe.maxActive = Math.max(scheduleProbe.maxActive, scheduleProbe.active);
  try {
    scheduleProbe.events.push(event);
    await scheduleProbe.gate;
    if (scheduleProbe.fail) throw new Error('fixture schedule failed');
    scheduleProbe.runs++;
  } finally {
    scheduleProbe.active--;
  }
}
