import { badRequest } from '#shared/platform/errors.ts';
import { reportForEdit, withColumnsLocked } from './column-lock.ts';
import { setRunScore, updateReportHead } from './head.ts';
import type { ReportColumn, ReportRecord, ReportScore } from './records.ts';
import type { ScoreCardBody } from './result-schemas.ts';
import { computeReportScore, ScoreError } from './score.ts';
import { scoreConfigurationOf } from './score-configuration.ts';
import { listColumns, updateColumn } from './store.ts';

/**
 * PATCH /reports/{report_id}/score-card: which columns are part of the built-in score, and the custom
 * score code (set, or cleared when absent). Refused while the report runs (the same column lock as a
 * column edit); when its latest run is COMPLETED the score is computed again and stored, so
 * GET /reports/{id}/score answers the new card.
 */
export async function updateScoreCard(ws: number, reportId: number, body: ScoreCardBody) {
  const { report, revision } = await reportForEdit(ws, reportId);
  const columns = await listColumns(ws, reportId, { consistent: true });
  const names = new Set(columns.map((column) => column.name));
  const unknown = [...new Set(body.column_names.filter((name) => !names.has(name)))];
  if (unknown.length > 0) {
    throw badRequest(
      `Report ${reportId} has no evaluation column named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  const configuration = scoreConfigurationOf(
    body.code != null ? { code: body.code, code_language: body.code_language ?? 'JAVASCRIPT' } : null,
  );

  const marked = new Set(body.column_names);
  const scored = columns.map((column) => ({ ...column, isPartOfScore: marked.has(column.name) }));
  // 409 while a run is in progress (or another edit of the columns came first).
  const updated = await withColumnsLocked(ws, report, revision, async () => {
    const head = await updateReportHead(ws, reportId, { scoreConfiguration: configuration });
    await Promise.all(
      scored
        .filter((column, i) => column.isPartOfScore !== columns[i]!.isPartOfScore)
        .map((column) => updateColumn(ws, column)),
    );
    return head;
  });
  if (updated.run?.status === 'COMPLETED') await storeRunScore(updated, scored);
  return {
    success: true as const,
    report: { id: updated.id, name: updated.name, tags: updated.tags, score_configuration: configuration },
  };
}

/**
 * Computes the score of the report's latest run and stores it on the head (`run.score`, or
 * `run.scoreError` when the score code failed), unless another run has started since. Answers what it
 * stored. For the run's end and for a changed score card.
 */
export async function storeRunScore(
  report: ReportRecord,
  columns: readonly ReportColumn[],
): Promise<{ score: ReportScore | null; scoreError: string | null }> {
  const run = report.run;
  if (!run) throw new Error(`Report ${report.id} has no run to score`);
  let score: ReportScore | null = null;
  let scoreError: string | null = null;
  try {
    score = await computeReportScore(report, columns);
  } catch (error) {
    if (!(error instanceof ScoreError)) throw error;
    scoreError = error.message;
  }
  await setRunScore(report.workspaceId, report.id, run.number, { score, scoreError });
  return { score, scoreError };
}
