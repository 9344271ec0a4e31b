import { describe, expect, it, vi } from 'vitest';
import type { ReportColumn, ReportRecord, ReportRunState } from '#shared/reports/records.ts';
import { evaluationRows, storedScore } from '#shared/reports/results.ts';

/** What the score and rows routes answer from a report's head, columns and cells (stubbed reads). */

const state = vi.hoisted(() => ({
  report: undefined as unknown,
  columns: [] as unknown[],
  cells: [] as Map<number, unknown>[],
  reads: [] as string[],
}));

vi.mock('#shared/reports/head.ts', () => ({ requireReport: async () => state.report }));
vi.mock('#shared/reports/store.ts', () => ({ listColumns: async () => state.columns }));
vi.mock('#shared/reports/run/cells.ts', () => ({
  readRowCells: async (_report: unknown, from: number, count: number) => {
    state.reads.push(`cells ${from}+${count}`);
    return state.cells.slice(from, from + count);
  },
}));
vi.mock('#shared/datasets/repository.ts', () => ({
  getDataset: async () => ({ columns: ['q'], manifestKey: 'm' }),
}));
vi.mock('#shared/datasets/manifest.ts', () => ({
  readManifest: async () => ({ columns: ['q'], rowCount: 25 }),
}));
vi.mock('#shared/datasets/rows.ts', () => ({
  rowWindow: async (_manifest: unknown, from: number, count: number) => {
    state.reads.push(`rows ${from}+${count}`);
    return Array.from({ length: Math.max(0, Math.min(count, 25 - from)) }, (_, i) => [`q${from + i}`]);
  },
}));

const run = (more: Partial<ReportRunState>): ReportRunState => ({
  number: 1,
  status: 'COMPLETED',
  startedAt: '2026-01-01T00:00:00.000Z',
  rowCount: 25,
  batchSize: 10,
  batchCount: 3,
  cellCount: 50,
  startedCells: 50,
  completedCells: 50,
  failedCells: 0,
  ...more,
});

describe('storedScore', () => {
  const configuration = { code: 'return {score: 1}', code_language: 'JAVASCRIPT' as const };
  const stored = {
    overall_score: 50,
    score_type: 'single_column' as const,
    has_custom_scoring: false,
    details: {},
  };

  it('answers "none" before a run and while running, the stored score after', () => {
    expect(storedScore({ scoreConfiguration: null })).toMatchObject({
      score_type: 'none',
      details: { message: 'The report has not been run yet' },
    });
    expect(
      storedScore({ scoreConfiguration: null, run: run({ status: 'RUNNING', score: stored }) }),
    ).toMatchObject({
      score_type: 'none',
      details: { message: expect.stringContaining('running') },
    });
    expect(storedScore({ scoreConfiguration: null, run: run({ score: stored }) })).toBe(stored);
  });

  it('answers a failed score code as a custom score without a value, with the error', () => {
    expect(
      storedScore({ scoreConfiguration: configuration, run: run({ score: null, scoreError: 'boom' }) }),
    ).toEqual({
      overall_score: null,
      score_type: 'custom',
      has_custom_scoring: true,
      details: { matrix: [], configuration, error: 'boom' },
    });
  });
});

describe('evaluationRows', () => {
  const column = (id: number, name: string, position: number) =>
    ({
      id,
      name,
      position,
      reportId: 1,
      columnType: 'COMPARE',
      configuration: {},
      isPartOfScore: false,
    }) as ReportColumn;

  it('reads only the page, dataset values first, NOT_RUN for a column the run did not have', async () => {
    state.report = { id: 1, workspaceId: 1, datasetId: 2, run: run({}) } as ReportRecord;
    state.columns = [column(7, 'a', 1), column(8, 'added later', 2)];
    state.cells = Array.from(
      { length: 25 },
      (_, i) => new Map([[7, { status: 'COMPLETED', value: i, error_message: null }]]),
    );
    state.reads = [];
    const page = await evaluationRows(1, 1, { page: 3, per_page: 10 });
    expect(state.reads).toEqual(['rows 20+5', 'cells 20+5']);
    expect(page).toMatchObject({
      columns: ['q', 'a', 'added later'],
      page: 3,
      per_page: 10,
      pages: 3,
      total: 25,
    });
    expect(page.rows).toHaveLength(5);
    expect(page.rows[0]).toEqual([
      { type: 'dataset', value: 'q20' },
      { type: 'eval', status: 'COMPLETED', value: 20, error_message: null },
      { type: 'eval', status: 'NOT_RUN', value: null, error_message: null },
    ]);
  });

  it('reads no cells before the first run, nor past the last row', async () => {
    state.report = { id: 1, workspaceId: 1, datasetId: 2 } as ReportRecord;
    state.reads = [];
    const first = await evaluationRows(1, 1, { page: 1, per_page: 2 });
    expect(first.rows[1]).toEqual([
      { type: 'dataset', value: 'q1' },
      { type: 'eval', status: 'NOT_RUN', value: null, error_message: null },
      { type: 'eval', status: 'NOT_RUN', value: null, error_message: null },
    ]);
    state.report = { id: 1, workspaceId: 1, datasetId: 2, run: run({}) } as ReportRecord;
    const past = await evaluationRows(1, 1, { page: 9, per_page: 10 });
    expect(past).toMatchObject({ rows: [], pages: 3, total: 25 });
    expect(state.reads).toEqual(['rows 0+2']);
  });
});
