import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailed, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { badRequest, conflict, notFound } from '#shared/platform/errors.ts';
import { columnKey, reportKey } from './keys.ts';
import type { ReportColumn, ReportRecord, ReportScore, ScoreConfiguration } from './records.ts';
import type { ScoreCardBody } from './result-schemas.ts';
import { computeReportScore, ScoreError } from './score.ts';
import { getReport, listColumns, requireReport } from './store.ts';

/**
 * PATCH /reports/{report_id}/score-card: which columns are part of the built-in score, and the custom
 * score code (set, or cleared when absent). Refused while the report runs; when its latest run is
 * COMPLETED the score is computed again and stored, so GET /reports/{id}/score answers the new card.
 */
export async function updateScoreCard(ws: number, reportId: number, body: ScoreCardBody) {
  const report = await requireReport(ws, reportId);
  if (report.run?.status === 'RUNNING') throw runningConflict(reportId);
  const columns = await listColumns(ws, reportId);
  const byName = new Map(columns.map((column) => [column.name, column]));
  const unknown = body.column_names.filter((name) => !byName.has(name));
  if (unknown.length > 0) {
    throw badRequest(
      `Report ${reportId} has no evaluation column named ${unknown.map((name) => JSON.stringify(name)).join(', ')}`,
    );
  }
  const language = body.code_language ?? 'JAVASCRIPT';
  if (body.code != null && language !== 'JAVASCRIPT') {
    throw badRequest(`code_language ${language} is not supported: score code runs as JAVASCRIPT`);
  }
  const configuration: ScoreConfiguration | null =
    body.code != null ? { code: body.code, code_language: language } : null;

  const updatedAt = new Date().toISOString();
  await writeScoreConfiguration(ws, reportId, configuration, updatedAt);
  const marked = new Set(body.column_names);
  const scored = columns.map((column) => ({ ...column, isPartOfScore: marked.has(column.name) }));
  await Promise.all(
    scored
      .filter((column, i) => column.isPartOfScore !== columns[i]!.isPartOfScore)
      .map((column) => writeIsPartOfScore(ws, column)),
  );
  const updated: ReportRecord = { ...report, scoreConfiguration: configuration, updatedAt };
  if (updated.run?.status === 'COMPLETED') await storeRunScore(updated, scored);
  return {
    success: true as const,
    report: { id: report.id, name: report.name, tags: report.tags, score_configuration: configuration },
  };
}

const runningConflict = (reportId: number) =>
  conflict(
    `Report ${reportId} is running: change its score card when the run has finished`,
    'report_running',
  );

const NOT_RUNNING =
  'attribute_exists(PK) AND deleted <> :true AND (attribute_not_exists(#run) OR #run.#status <> :running)';

async function writeScoreConfiguration(
  ws: number,
  reportId: number,
  configuration: ScoreConfiguration | null,
  updatedAt: string,
): Promise<void> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression: 'SET scoreConfiguration = :configuration, updatedAt = :updatedAt',
        ConditionExpression: NOT_RUNNING,
        ExpressionAttributeNames: { '#run': 'run', '#status': 'status' },
        ExpressionAttributeValues: {
          ':configuration': configuration,
          ':updatedAt': updatedAt,
          ':true': true,
          ':running': 'RUNNING',
        },
      }),
    );
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    // Deleted meanwhile, or a run started since the report was read.
    if (!(await getReport(ws, reportId, { consistent: true })))
      throw notFound(`Report ${reportId} not found`);
    throw runningConflict(reportId);
  }
}

async function writeIsPartOfScore(ws: number, column: ReportColumn): Promise<void> {
  // A column deleted meanwhile is gone: nothing to mark.
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: columnKey(ws, column.reportId, column.id),
        UpdateExpression: 'SET isPartOfScore = :scored',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':scored': column.isPartOfScore },
      }),
    ),
  );
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
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(report.workspaceId, report.id),
        UpdateExpression: 'SET #run.#score = :score, #run.#scoreError = :scoreError',
        ConditionExpression: '#run.#number = :number',
        ExpressionAttributeNames: {
          '#run': 'run',
          '#score': 'score',
          '#scoreError': 'scoreError',
          '#number': 'number',
        },
        ExpressionAttributeValues: { ':score': score, ':scoreError': scoreError, ':number': run.number },
      }),
    ),
  );
  return { score, scoreError };
}
