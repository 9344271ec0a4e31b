import { describe, expect, it } from 'vitest';
import { rowProgress } from './api.ts';
import { nextDelay, POLL_FIRST_MS, POLL_MAX_MS } from './poll.ts';

describe('reading a running report politely', () => {
  it('waits longer each time, up to 10 s', () => {
    const waits: number[] = [];
    let delay = POLL_FIRST_MS;
    for (let i = 0; i < 8; i++) {
      delay = nextDelay(delay, false, false);
      waits.push(delay);
    }
    expect(waits.slice(0, 3)).toEqual([1500, 2250, 3375]);
    expect(Math.max(...waits)).toBe(POLL_MAX_MS);
  });

  it('doubles after a failure, up to 30 s, and waits longest in a hidden tab', () => {
    expect(nextDelay(1000, true, false)).toBe(2000);
    expect(nextDelay(20_000, true, false)).toBe(30_000);
    expect(nextDelay(1000, false, true)).toBe(POLL_MAX_MS);
  });
});

describe('rows done of a run', () => {
  it('counts whole rows from the cell counts (a batch counts all its cells at once)', () => {
    expect(rowProgress({ COMPLETED: 5, FAILED: 1, QUEUED: 4, RUNNING: 2 }, 2)).toEqual({ done: 3, total: 6 });
    expect(rowProgress({ COMPLETED: 0, FAILED: 0, QUEUED: 0, RUNNING: 0 }, 0)).toEqual({ done: 0, total: 0 });
  });
});
