import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '#functions/scheduled/monitor-evaluation.ts';

/** The monitor-evaluation schedule: evaluates at the schedule's time; a run with failures fails. */
const evaluation = vi.hoisted(() => ({
  calls: [] as number[],
  result: { monitors: 2, transitions: 0, failed: 0, rollupItemsRead: 4, indexQueries: 4 },
}));
vi.mock('#shared/monitors/evaluate.ts', () => ({
  evaluateMonitors: async (_reader: unknown, now: number) => {
    evaluation.calls.push(now);
    return evaluation.result;
  },
}));

describe('the monitor-evaluation schedule', () => {
  beforeEach(() => {
    evaluation.calls = [];
    evaluation.result = { ...evaluation.result, failed: 0 };
  });

  it('evaluates at the scheduled time, so a retried run evaluates the same minute', async () => {
    await handler({ time: '2026-11-28T14:03:00Z' });
    await handler({ time: '2026-11-28T14:03:00Z' });
    expect(evaluation.calls).toEqual([Date.UTC(2026, 10, 28, 14, 3), Date.UTC(2026, 10, 28, 14, 3)]);
  });

  it('fails when a monitor could not be evaluated, naming how many', async () => {
    evaluation.result = { ...evaluation.result, failed: 1 };
    await expect(handler({ time: '2026-11-28T14:03:00Z' })).rejects.toThrow(
      '1 monitors could not be evaluated',
    );
  });
});
