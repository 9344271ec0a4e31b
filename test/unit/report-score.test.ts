import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ReportColumn, ReportRecord } from '#shared/reports/records.ts';
import type { Cell } from '#shared/reports/run/cells.ts';
import {
  builtInScore,
  computeReportScore,
  customScore,
  MAX_SCORE_MATRIX_BYTES,
  newTally,
  ScoreError,
  tallyCell,
} from '#shared/reports/score.ts';
import { SandboxHost } from '#shared/sandbox/host.ts';
import { createSandbox } from '#shared/sandbox/sandbox.ts';

/** The score's arithmetic (pure), and computeReportScore over stubbed cells and dataset rows. */

const cellsByRow = vi.hoisted(() => ({
  rows: [] as Map<number, unknown>[],
  reads: [] as number[][],
  columnsRead: new Set<number>(),
}));
const datasetRows = vi.hoisted(() => ({ columns: ['question'], rows: [] as unknown[][] }));

vi.mock('#shared/reports/run/cells.ts', () => ({
  readRowCells: async (
    _report: unknown,
    from: number,
    count: number,
    options: { columns?: ReadonlySet<number> } = {},
  ) => {
    cellsByRow.reads.push([from, count]);
    return cellsByRow.rows.slice(from, from + count).map((row) => {
      const answered = new Map([...row].filter(([id]) => options.columns?.has(id) ?? true));
      for (const id of answered.keys()) cellsByRow.columnsRead.add(id);
      return answered;
    });
  },
}));
vi.mock('#shared/datasets/repository.ts', () => ({
  getDataset: async () => ({ manifestKey: 'manifest' }),
}));
vi.mock('#shared/datasets/manifest.ts', () => ({
  readManifest: async () => ({ columns: datasetRows.columns }),
}));
vi.mock('#shared/datasets/rows.ts', () => ({
  keepingChunkReader: () => undefined,
  rowWindow: async (_manifest: unknown, from: number, count: number) =>
    datasetRows.rows.slice(from, from + count),
}));

const done = (value: unknown): Cell => ({ status: 'COMPLETED', value, error_message: null });
const failed: Cell = { status: 'FAILED', value: null, error_message: 'boom' };

const tallyOf = (name: string, cells: (Cell | undefined)[]) => {
  const tally = newTally(name);
  for (const cell of cells) tallyCell(tally, cell);
  return tally;
};

describe('built-in score arithmetic', () => {
  it('scores a boolean column as the share of true cells, skipping failed, missing and other values', () => {
    const tally = tallyOf('ok', [done(true), done(false), done(true), failed, undefined, done('yes')]);
    expect(builtInScore([tally])).toEqual({
      overall_score: (2 / 3) * 100,
      score_type: 'single_column',
      has_custom_scoring: false,
      details: { column_name: 'ok', score: (2 / 3) * 100, score_type: 'boolean', num_skipped: 3 },
    });
  });

  it('averages a numeric column', () => {
    const score = builtInScore([tallyOf('n', [done(10), done(20), done(60), failed])]);
    expect(score.overall_score).toBe(30);
    expect(score.details).toEqual({ column_name: 'n', score: 30, score_type: 'numeric', num_skipped: 1 });
  });

  it('takes the kind most values have, skipping the other kind', () => {
    const score = builtInScore([tallyOf('mixed', [done(true), done(true), done(false), done(7)])]);
    expect(score.details).toMatchObject({ score_type: 'boolean', num_skipped: 1 });
    expect(score.overall_score).toBeCloseTo(66.667, 2);
  });

  it('averages the column scores of several columns, leaving out a column with nothing to score', () => {
    const score = builtInScore([
      tallyOf('a', [done(true), done(false)]),
      tallyOf('b', [done(true), done(true)]),
      tallyOf('c', [failed, failed]),
    ]);
    expect(score).toEqual({
      overall_score: 75,
      score_type: 'multi_column',
      has_custom_scoring: false,
      details: {
        columns: [
          { column_name: 'a', score: 50, score_type: 'boolean', num_skipped: 0 },
          { column_name: 'b', score: 100, score_type: 'boolean', num_skipped: 0 },
          { column_name: 'c', score: null, score_type: null, num_skipped: 2 },
        ],
      },
    });
  });

  it('answers "none" without scored columns and null when a single column has nothing to score', () => {
    expect(builtInScore([])).toMatchObject({
      overall_score: null,
      score_type: 'none',
      details: { message: expect.any(String) },
    });
    expect(builtInScore([tallyOf('x', [failed])])).toMatchObject({
      overall_score: null,
      score_type: 'single_column',
    });
  });
});

describe('custom score result', () => {
  const configuration = { code: 'return {score: 1}', code_language: 'JAVASCRIPT' as const };

  it('takes the returned score and matrix', () => {
    expect(customScore({ score: 42.5, matrix: [[1, 2]] }, configuration)).toEqual({
      overall_score: 42.5,
      score_type: 'custom',
      has_custom_scoring: true,
      details: { matrix: [[1, 2]], configuration },
    });
  });

  it.each([
    [42, 'must return an object'],
    [[1], 'must return an object'],
    [null, 'must return an object'],
    [{}, 'returned nothing as "score"'],
    [{ score: '50' }, 'returned a string as "score"'],
    [{ score: 101 }, 'returned 101 as "score"'],
    [{ score: -1 }, 'returned -1 as "score"'],
  ])('refuses %j', (returned, message) => {
    expect(() => customScore(returned, configuration)).toThrow(ScoreError);
    expect(() => customScore(returned, configuration)).toThrow(message);
  });

  it('refuses a matrix too large to keep, and keeps one at the limit', () => {
    const atLimit = ['x'.repeat(MAX_SCORE_MATRIX_BYTES - 4)];
    expect(customScore({ score: 1, matrix: atLimit }, configuration).details.matrix).toEqual(atLimit);
    const over = ['x'.repeat(MAX_SCORE_MATRIX_BYTES - 3)];
    expect(() => customScore({ score: 1, matrix: over }, configuration)).toThrow(
      `a matrix too large to keep: ${MAX_SCORE_MATRIX_BYTES + 1} bytes of JSON`,
    );
  });
});

describe('computeReportScore', () => {
  const sandbox = createSandbox(new SandboxHost({ maxWorkers: 1 }));
  afterAll(() => sandbox.close());

  const column = (id: number, name: string, position: number, isPartOfScore: boolean): ReportColumn => ({
    id,
    reportId: 1,
    name,
    columnType: 'COMPARE',
    configuration: {},
    position,
    isPartOfScore,
  });
  const columns = [
    column(11, 'answer', 1, false),
    column(12, 'correct', 2, true),
    column(13, 'short', 3, true),
  ];
  const rowCount = 1203;
  const report = (scoreConfiguration: ReportRecord['scoreConfiguration'] = null) =>
    ({
      id: 1,
      workspaceId: 1,
      datasetId: 5,
      scoreConfiguration,
      run: { number: 1, status: 'COMPLETED', rowCount },
    }) as unknown as ReportRecord;

  beforeEach(() => {
    cellsByRow.reads = [];
    cellsByRow.columnsRead = new Set();
    cellsByRow.rows = Array.from(
      { length: rowCount },
      (_, i) =>
        new Map<number, Cell>([
          [11, done(`answer ${i}`)],
          [12, i % 4 === 0 ? failed : done(i % 2 === 0)],
          [13, done(true)],
        ]),
    );
    datasetRows.rows = Array.from({ length: rowCount }, (_, i) => [`question ${i}`]);
  });

  it('reads the run a page at a time and scores the marked columns', async () => {
    const score = await computeReportScore(report(), columns, { sandbox });
    // Column "correct": rows i%4==0 failed (301), i%4==2 true (301), odd rows false (601).
    const correct = (301 / 902) * 100;
    expect(score).toMatchObject({
      score_type: 'multi_column',
      details: {
        columns: [
          { column_name: 'correct', score: correct, num_skipped: 301 },
          { column_name: 'short', score: 100, num_skipped: 0 },
        ],
      },
    });
    expect(score.overall_score).toBeCloseTo((correct + 100) / 2, 10);
    expect(cellsByRow.reads).toEqual([
      [0, 500],
      [500, 500],
      [1000, 203],
    ]);
    // The cells of the unscored column "answer" (whose values may be big, in S3) are never read.
    expect([...cellsByRow.columnsRead].sort()).toEqual([12, 13]);
  });

  it('runs the score code over every row (dataset and evaluation columns by name)', async () => {
    const code = `
      const passed = data.filter((row) => row.correct === true).length;
      const failedCells = data.filter((row) => row.correct === null).length;
      return { score: passed / data.length * 100, matrix: [[data[2].question, data[2].answer, failedCells]] };
    `;
    const score = await computeReportScore(report({ code, code_language: 'JAVASCRIPT' }), columns, {
      sandbox,
    });
    expect(score).toEqual({
      overall_score: (301 / rowCount) * 100,
      score_type: 'custom',
      has_custom_scoring: true,
      details: {
        matrix: [['question 2', 'answer 2', 301]],
        configuration: { code, code_language: 'JAVASCRIPT' },
      },
    });
    // Every column's values, a small page at a time: 25 pages of 50 rows, the last of 3.
    expect(cellsByRow.reads).toHaveLength(25);
    expect(cellsByRow.reads.slice(-2)).toEqual([
      [1150, 50],
      [1200, 3],
    ]);
    expect([...cellsByRow.columnsRead].sort()).toEqual([11, 12, 13]);
  });

  it('fails with a ScoreError when the score code throws, returns no score or is Python', async () => {
    const run = (code: string, code_language: 'JAVASCRIPT' | 'PYTHON' = 'JAVASCRIPT') =>
      computeReportScore(report({ code, code_language }), columns, { sandbox });
    await expect(run('throw new Error("no score today")')).rejects.toThrow(
      expect.objectContaining({ name: 'ScoreError', message: expect.stringContaining('no score today') }),
    );
    await expect(run('return { score: 150 }')).rejects.toThrow('returned 150 as "score"');
    await expect(run('return 50')).rejects.toThrow('must return an object');
    await expect(run('return {score: 1}', 'PYTHON')).rejects.toThrow('code_language PYTHON is not supported');
    // What user code throws is stored clipped.
    const long = await run('throw new Error("x".repeat(100000))').catch((error: Error) => error);
    expect(long).toBeInstanceOf(ScoreError);
    expect((long as Error).message.length).toBeLessThanOrEqual(4096);
  });
});
