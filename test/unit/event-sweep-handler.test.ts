import { beforeEach, describe, expect, it, vi } from 'vitest';
import { handler } from '#functions/scheduled/event-sweep.ts';

/** The sweep's schedule: a run that gave events up fails, which the schedule's error alarm watches. */
const sweep = vi.hoisted(() => ({ result: { found: 0, put: 0, abandoned: 0 } }));
vi.mock('#shared/events/sweep.ts', () => ({ sweepEvents: async () => sweep.result }));

describe('the event-sweep schedule', () => {
  beforeEach(() => {
    sweep.result = { found: 3, put: 3, abandoned: 0 };
  });

  it('succeeds when every due event went back on the bus', async () => {
    await expect(handler()).resolves.toBeUndefined();
  });

  it('fails when it gave events up, naming how many', async () => {
    sweep.result = { found: 3, put: 1, abandoned: 2 };
    await expect(handler()).rejects.toThrow('2 events were given up');
  });
});
