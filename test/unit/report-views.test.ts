import { describe, expect, it } from 'vitest';
import type { ReportColumn, ReportScore } from '#shared/reports/records.ts';
import { columnScore, scoreMatrix } from '#shared/reports/views.ts';

const column = (id: number, name: string) =>
  ({
    id,
    reportId: 1,
    name,
    columnType: 'COMPARE',
    configuration: {},
    position: id,
    isPartOfScore: true,
  }) as ReportColumn;

const score = (score_type: ReportScore['score_type'], details: Record<string, unknown>): ReportScore => ({
  overall_score: 50,
  score_type,
  has_custom_scoring: score_type === 'custom',
  details,
});

describe('columnScore', () => {
  it("reads a single column's details and a multi-column entry by name", () => {
    const single = score('single_column', {
      column_name: 'ok',
      score: 75,
      score_type: 'boolean',
      num_skipped: 1,
    });
    const multi = score('multi_column', {
      columns: [
        { column_name: 'a', score: 10, score_type: 'numeric', num_skipped: 0 },
        { column_name: 'b', score: null, score_type: 'boolean', num_skipped: 3 },
      ],
    });

    expect(columnScore(single, column(1, 'ok'))).toBe(75);
    expect(columnScore(single, column(2, 'other'))).toBeNull();
    expect(columnScore(multi, column(1, 'a'))).toBe(10);
    expect(columnScore(multi, column(2, 'b'))).toBeNull();
    expect(columnScore(multi, column(3, 'c'))).toBeNull();
  });

  it('is null without a score, for a custom score and for no score', () => {
    expect(columnScore(undefined, column(1, 'a'))).toBeNull();
    expect(columnScore(null, column(1, 'a'))).toBeNull();
    expect(columnScore(score('custom', { matrix: [], configuration: {} }), column(1, 'a'))).toBeNull();
    expect(
      columnScore(score('none', { message: 'No columns are part of the score' }), column(1, 'a')),
    ).toBeNull();
  });
});

describe('scoreMatrix', () => {
  it("is a custom score's matrix, else null", () => {
    expect(scoreMatrix(score('custom', { matrix: [[1, 2]], configuration: {} }))).toEqual([[1, 2]]);
    expect(scoreMatrix(score('multi_column', { columns: [] }))).toBeNull();
    expect(scoreMatrix(null)).toBeNull();
  });
});
