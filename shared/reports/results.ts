import { readManifest } from '#shared/datasets/manifest.ts';
import { getDataset } from '#shared/datasets/repository.ts';
import { rowWindow } from '#shared/datasets/rows.ts';
import { ANSWER_BUDGET_BYTES, valuesToOmit } from '#shared/platform/answer-limit.ts';
import { checkWorkspaceParam } from '#shared/platform/errors.ts';
import { requireReport } from './head.ts';
import type { ReportRecord, ReportScore } from './records.ts';
import type { EvaluationRowsPage } from './result-schemas.ts';
import { type Cell, readRowCells } from './run/cells.ts';
import { failedCustomScore, noScore } from './score.ts';
import { listColumns } from './store.ts';

/** What a client reads of a report's latest run: its score and its rows (docs/reports.md). */

/** GET /reports/{report_id}/score: the stored score of the latest completed run. */
export async function reportScoreAnswer(ws: number, reportId: number) {
  const report = await requireReport(ws, reportId);
  return { success: true as const, message: 'success', score: storedScore(report) };
}

export function storedScore(report: Pick<ReportRecord, 'run' | 'scoreConfiguration'>): ReportScore {
  const run = report.run;
  if (!run) return noScore('The report has not been run yet');
  if (run.status === 'RUNNING')
    return noScore('The report is running: its score is computed when the run finishes');
  if (run.score) return run.score;
  if (run.scoreError) {
    return report.scoreConfiguration
      ? failedCustomScore(report.scoreConfiguration, run.scoreError)
      : noScore(`The score could not be computed: ${run.scoreError}`);
  }
  return noScore('No score was computed for this run');
}

const NOT_RUN: Cell = { status: 'NOT_RUN', value: null, error_message: null };

/**
 * GET /api/public/v2/evaluations/{evaluation_id}/rows: a page of rows, each the dataset's values then
 * one cell per evaluation column (NOT_RUN for a column the latest run did not have, or before any run).
 * Reads the dataset chunks and the run's batches that hold the page, nothing else.
 */
export async function evaluationRows(
  ws: number,
  reportId: number,
  query: { page: number; per_page: number; workspace_id?: number },
): Promise<EvaluationRowsPage> {
  checkWorkspaceParam(query.workspace_id, ws);
  const report = await requireReport(ws, reportId);
  const [columns, dataset] = await Promise.all([
    listColumns(ws, reportId),
    getDataset(ws, report.datasetId, { includeExpired: true }),
  ]);
  const manifest = dataset?.manifestKey ? await readManifest(dataset.manifestKey) : undefined;
  const total = manifest?.rowCount ?? 0;
  const offset = (query.page - 1) * query.per_page;
  const pageRows = Math.max(0, Math.min(query.per_page, total - offset));
  const runRows = Math.max(0, Math.min(pageRows, (report.run?.rowCount ?? 0) - offset));
  const [values, cells] = await Promise.all([
    manifest && pageRows > 0 ? rowWindow(manifest, offset, pageRows) : [],
    // Values held in S3 are loaded up to what one answer can carry; past it they are only sized.
    runRows > 0 ? readRowCells(report, offset, runRows, { valueBudgetBytes: ANSWER_BUDGET_BYTES }) : [],
  ]);
  return withinAnswerLimit({
    success: true,
    message: 'success',
    columns: [...(manifest?.columns ?? dataset?.columns ?? []), ...columns.map((column) => column.name)],
    rows: values.map((row, i) => [
      ...row.map((value) => ({ type: 'dataset' as const, value })),
      ...columns.map((column) => {
        const cell = cells[i]?.get(column.id) ?? NOT_RUN;
        return {
          type: 'eval' as const,
          status: cell.status,
          value: cell.value,
          error_message: cell.error_message,
          ...(cell.requestLogId === undefined ? {} : { request_log_id: cell.requestLogId }),
          ...(cell.omittedBytes === undefined ? {} : { value_omitted_bytes: cell.omittedBytes }),
        };
      }),
    ]),
    page: query.page,
    per_page: query.per_page,
    pages: Math.ceil(total / query.per_page),
    total,
  });
}

/**
 * The page within the answer budget: the largest cell values (dataset or evaluation) left out first,
 * each answered as `value: null` with `value_omitted_bytes` (its JSON's size), until it fits; a smaller
 * page (`per_page`) answers them.
 */
export function withinAnswerLimit(page: EvaluationRowsPage, limit = ANSWER_BUDGET_BYTES): EvaluationRowsPage {
  const omitted = valuesToOmit(
    page,
    page.rows.flat().map((cell) => cell.value),
    limit,
  );
  if (omitted.size === 0) return page;
  let index = 0;
  const rows = page.rows.map((row) =>
    row.map((cell) => {
      const bytes = omitted.get(index++);
      return bytes === undefined ? cell : { ...cell, value: null, value_omitted_bytes: bytes };
    }),
  );
  return { ...page, rows };
}
