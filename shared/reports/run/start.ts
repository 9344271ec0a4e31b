import { randomUUID } from 'node:crypto';
import { isDraft } from '#shared/datasets/records.ts';
import { getDataset } from '#shared/datasets/repository.ts';
import { deleteObject } from '#shared/platform/blob-store.ts';
import { badRequest, conflict, notFound } from '#shared/platform/errors.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import { storeJson } from '#shared/platform/stored-json.ts';
import * as z from '#shared/platform/zod.ts';
import { columnsUnlocked, reportForEdit } from '../column-lock.ts';
import { abandonRun, beginRun, reportRunning, type StoredRunState, updateReportHead } from '../head.ts';
import type { ReportRecord, ReportRunState } from '../records.ts';
import { copyReport, listColumns } from '../store.ts';
import { type CompletionDeps, completeRunIfDone, defaultCompletionDeps } from './complete.ts';
import { deleteRunObjects, type RunSnapshot, snapshotObjectKey } from './objects.ts';
import { batchSizeFor, type RunStartMessage } from './queue.ts';

/** The run body (PromptLayer's fields; every one optional here: without `name` the report runs in place). */
export const runReportBodySchema = z
  .object({
    name: z.nullish(wellFormedString().check(z.minLength(1), z.maxLength(255))),
    dataset_id: z.nullish(z.int().check(z.gte(1), z.lte(Number.MAX_SAFE_INTEGER))),
    refresh_dataset: z.nullish(z.boolean()),
  })
  .clone()
  .register(z.globalRegistry, { id: 'RunReport' });
export type RunReportBody = z.infer<typeof runReportBodySchema>;

export interface StartDeps extends CompletionDeps {
  /** Queues the run's first message (the worker sends one message per batch). */
  send(message: RunStartMessage): Promise<void>;
}

/**
 * Runs a report: in place, or (with `name`) a copy of it made first. The run works on a snapshot taken
 * now (the columns and the dataset version's manifest), stored with the run state on the head in one
 * conditional write that refuses a second run while one is RUNNING (409). A run with no cell to fill
 * (no rows, or no columns) completes at once; otherwise one message starts the fan-out of the batches.
 */
export async function startReportRun(
  ws: number,
  reportId: number,
  body: RunReportBody,
  caller: { userId: number; userEmail?: string },
  deps: StartDeps,
): Promise<{ reportId: number; runNumber: number }> {
  if (body.refresh_dataset === true)
    throw badRequest('refresh_dataset is not supported: datasets here are static');
  // Read consistently: a run that just completed must not look RUNNING (a 409), nor give a stale number.
  // With the columns' revision read before the columns are: the run starts only if it is still that.
  const { report: source, revision } = await reportForEdit(ws, reportId);
  if (source.run?.status === 'RUNNING') {
    await restartIfStalled(ws, source, source.run, deps);
    throw reportRunning(source.id);
  }
  const dataset = await datasetFor(ws, source, body.dataset_id ?? undefined);
  const report = body.name ? await copyReport(source, body.name, caller) : source;
  const columns = await listColumns(ws, report.id, { consistent: true });

  const number = (report.run?.number ?? 0) + 1;
  const rowCount = dataset.manifestKey ? dataset.rowCount : 0;
  const batchSize = batchSizeFor(rowCount);
  const snapshot: RunSnapshot = {
    columns,
    dataset: {
      id: dataset.id,
      versionNumber: dataset.versionNumber,
      manifestKey: dataset.manifestKey ?? null,
      columns: dataset.columns,
      rowCount,
    },
  };
  const stored = await storeJson(snapshotObjectKey(ws, report.id, number, randomUUID()), snapshot);
  const now = new Date(deps.now()).toISOString();
  const run: StoredRunState = {
    number,
    status: 'RUNNING',
    startedAt: now,
    rowCount,
    batchSize,
    batchCount: Math.ceil(rowCount / batchSize),
    cellCount: rowCount * columns.length,
    startedCells: 0,
    completedCells: 0,
    failedCells: 0,
    score: null,
    scoreError: null,
    ...(stored.json !== undefined ? { snapshotJson: stored.json } : { snapshotKey: stored.key }),
  };
  // A copy is new: no edit has touched its columns (revision 0).
  const unlocked = columnsUnlocked(report === source ? revision : 0, Date.parse(now));
  const outcome = await beginRun(ws, report.id, run, dataset, now, unlocked);
  // Refused: the snapshot this request stored is nobody's.
  if (outcome !== 'started' && stored.key !== undefined) await deleteObject(stored.key);
  if (outcome === 'gone') throw notFound(`Report ${report.id} not found`);
  if (outcome === 'running') throw reportRunning(source.id);
  if (outcome === 'changed') {
    throw conflict(`Report ${report.id} was changed by another request; try again`, 'concurrent_change');
  }
  try {
    if (run.cellCount === 0) await completeRunIfDone(ws, report.id, number, deps);
    else await deps.send({ v: 1, type: 'report-run-start', ws, reportId: report.id, run: number });
  } catch (error) {
    // Nothing would ever run (or end) this run, and the report would answer 409 for good: the head
    // goes back to the run before it, and a copy made for it goes away (the request failed as a whole).
    if (await abandonRun(ws, report.id, number, report)) {
      await deleteRunObjects(ws, report.id, number);
      if (report !== source) await updateReportHead(ws, report.id, { deleted: true }, { touch: false });
    }
    throw error;
  }
  return { reportId: report.id, runNumber: number };
}

/**
 * A run that has not claimed a batch this long after it started may never have had its first message
 * (the route died between its start write and the send): a run request that finds it so sends that
 * message again (or, for a run without cells, completes it). Harmless when the message was merely slow:
 * the fan-out is idempotent.
 */
export const STALLED_START_MS = 5 * 60_000;

async function restartIfStalled(ws: number, report: ReportRecord, run: ReportRunState, deps: StartDeps) {
  if (run.startedCells > 0 || deps.now() - Date.parse(run.startedAt) < STALLED_START_MS) return;
  if (run.cellCount === 0) await completeRunIfDone(ws, report.id, run.number, deps);
  else await deps.send({ v: 1, type: 'report-run-start', ws, reportId: report.id, run: run.number });
}

/** The dataset version a run reads: the report's own, or another published version of its group. */
async function datasetFor(ws: number, report: ReportRecord, datasetId: number | undefined) {
  const id = datasetId ?? report.datasetId;
  const dataset = await getDataset(ws, id);
  if (!dataset) throw notFound(`Dataset ${id} not found`);
  if (isDraft(dataset)) throw badRequest('The dataset is a draft: run a published version');
  if (dataset.groupId !== report.datasetGroupId)
    throw badRequest(`Dataset ${id} is not a version of the report's dataset group`);
  return dataset;
}

export const defaultStartDeps = async (): Promise<StartDeps> => {
  const [{ sendJob }, { REPORT_ROWS_QUEUE }] = await Promise.all([
    import('#shared/platform/jobs.ts'),
    import('./queue.ts'),
  ]);
  return { ...defaultCompletionDeps, send: (message) => sendJob(REPORT_ROWS_QUEUE.name, message) };
};
