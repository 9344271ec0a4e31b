import { emitEvents } from '#shared/events/emit.ts';
import { logger } from '#shared/platform/logger.ts';
import { markRunCompleted, readHead, type StoredRunState } from '../head.ts';
import type { ReportColumn, ReportRecord, ReportScore } from '../records.ts';
import { computeReportScore, ScoreError } from '../score.ts';
import { loadSnapshot } from './objects.ts';

/** The score error stored when the score could not be computed for a reason of the service's own. */
export const INTERNAL_SCORE_ERROR = 'internal error: the score could not be computed';

export interface CompletionDeps {
  now(): number;
  score(report: ReportRecord, columns: readonly ReportColumn[]): Promise<ReportScore>;
}

export const defaultCompletionDeps: CompletionDeps = { now: Date.now, score: computeReportScore };

/**
 * Ends run `runNumber` once every cell is counted: the score, then RUNNING -> COMPLETED (one
 * conditional write, so one caller wins), then `report_finished`, keyed by report and run so that a
 * caller repeating this (a redelivered message, after a crash between the two) reports it once.
 */
export async function completeRunIfDone(
  ws: number,
  reportId: number,
  runNumber: number,
  deps: CompletionDeps,
): Promise<boolean> {
  const head = await readHead(ws, reportId);
  let run = head?.run;
  if (!head || !run || run.number !== runNumber) return false;
  if (run.completedCells + run.failedCells < run.cellCount) return false;
  if (run.status === 'RUNNING') {
    const snapshot = await loadSnapshot(ws, reportId, run);
    let score: ReportScore | null = null;
    let scoreError: string | null = null;
    try {
      score = await deps.score(head, snapshot.columns);
    } catch (error) {
      if (error instanceof ScoreError) {
        scoreError = error.message;
        logger.warn('Report score not computed', {
          reportId,
          run: runNumber,
          reason: scoreError.slice(0, 300),
        });
      } else {
        // The service failed, not the score code: the run still completes (its cells are all done), and
        // the client reads a plain message, never the internal error's text.
        scoreError = INTERNAL_SCORE_ERROR;
        logger.error('Report score failed', { reportId, run: runNumber, error });
      }
    }
    const finishedAt = new Date(deps.now()).toISOString();
    if (await markRunCompleted(ws, reportId, runNumber, { score, scoreError, finishedAt })) {
      run = { ...run, status: 'COMPLETED', finishedAt, score, scoreError };
    } else {
      const now = await readHead(ws, reportId);
      if (now?.run?.number !== runNumber || now.run.status !== 'COMPLETED') return false;
      run = now.run;
    }
  }
  await reportFinished(ws, head, run);
  return true;
}

async function reportFinished(ws: number, report: ReportRecord, run: StoredRunState): Promise<void> {
  await emitEvents(
    ws,
    [
      {
        type: 'report_finished',
        key: `${report.id}#${run.number}`,
        details: {
          report_id: report.id,
          report_name: report.name,
          parent_report_id: report.parentReportId ?? null,
          dataset_id: report.datasetId,
          status: 'COMPLETED',
          overall_score: run.score?.overall_score ?? null,
          status_counts: { COMPLETED: run.completedCells, FAILED: run.failedCells },
        },
      },
    ],
    { userId: report.userId, userEmail: report.userEmail ?? null },
  );
}
