import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReportScore } from '#shared/reports/records.ts';
import { completeRunIfDone } from '#shared/reports/run/complete.ts';
import { ScoreError } from '#shared/reports/score.ts';

/** The end of a run when its score cannot be computed: what is stored as the score error. */

const stored = vi.hoisted(() => ({ outcomes: [] as unknown[], events: [] as unknown[] }));

vi.mock('#shared/reports/head.ts', () => ({
  readHead: async () => ({
    id: 7,
    name: 'nightly',
    datasetId: 3,
    parentReportId: null,
    userId: 1,
    run: { number: 2, status: 'RUNNING', cellCount: 4, completedCells: 3, failedCells: 1 },
  }),
  markRunCompleted: async (_ws: number, _id: number, _run: number, outcome: unknown) => {
    stored.outcomes.push(outcome);
    return true;
  },
}));
vi.mock('#shared/reports/run/objects.ts', () => ({ loadSnapshot: async () => ({ columns: [] }) }));
vi.mock('#shared/events/emit.ts', () => ({
  emitEvents: async (_ws: number, events: unknown[]) => {
    stored.events.push(...events);
  },
}));
vi.mock('#shared/platform/logger.ts', () => ({ logger: { warn: vi.fn(), error: vi.fn(), info: vi.fn() } }));

const complete = (score: () => Promise<ReportScore>) =>
  completeRunIfDone(1, 7, 2, { now: () => Date.UTC(2026, 0, 1), score });

describe('completing a run whose score fails', () => {
  beforeEach(() => {
    stored.outcomes = [];
    stored.events = [];
  });

  it("stores the score code's own error", async () => {
    expect(await complete(() => Promise.reject(new ScoreError('the score code failed: nope')))).toBe(true);
    expect(stored.outcomes).toEqual([
      { score: null, scoreError: 'the score code failed: nope', finishedAt: '2026-01-01T00:00:00.000Z' },
    ]);
  });

  it('stores a generic message, never an internal error text, when the service failed', async () => {
    const internal = new Error('Requested resource not found: Table: promptops-prod-table not found');
    expect(await complete(() => Promise.reject(internal))).toBe(true);
    expect(stored.outcomes).toEqual([
      {
        score: null,
        scoreError: 'internal error: the score could not be computed',
        finishedAt: '2026-01-01T00:00:00.000Z',
      },
    ]);
    expect(stored.events).toMatchObject([{ type: 'report_finished', details: { overall_score: null } }]);
  });
});
