import type { ReportColumn, ReportRecord, ReportScore } from './records.ts';

/**
 * CONTRACT STUB (the results part replaces the body; keep name and signature).
 * The score of a report's latest (completed) run: the share of true cells of the columns marked
 * `isPartOfScore` (numbers averaged), or what the score configuration's code returns (in the sandbox).
 * Throws a ScoreError (its message stored as `score_calculation_error`) when the code fails.
 */
export async function computeReportScore(
  _report: ReportRecord,
  _columns: readonly ReportColumn[],
): Promise<ReportScore> {
  throw new Error('not implemented');
}
