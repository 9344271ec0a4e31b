import { readManifest } from '#shared/datasets/manifest.ts';
import { keepingChunkReader, rowWindow } from '#shared/datasets/rows.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { clip } from '#shared/platform/errors.ts';
import { keepLeased, releaseLease, renewLease } from '#shared/platform/lease.ts';
import { logger } from '#shared/platform/logger.ts';
import { storeJson } from '#shared/platform/stored-json.ts';
import * as z from '#shared/platform/zod.ts';
import type { NodeContext, NodePorts } from '#shared/workflows/nodes/types.ts';
import { NodeFailure } from '#shared/workflows/nodes/types.ts';
import { columnDependencies } from '../columns.ts';
import { batchKey } from '../keys.ts';
import type { ReportColumn } from '../records.ts';
import { type CompletionDeps, completeRunIfDone, defaultCompletionDeps } from './complete.ts';
import {
  MAX_BATCH_ATTEMPTS,
  REPORT_LEASE_MS,
  REPORT_LEASE_RENEW_MS,
  REPORT_ROWS_QUEUE,
  type ReportRowsQueueMessage,
  ROWS_IN_FLIGHT,
  type RowsMessage,
} from './queue.ts';
import {
  abandonBatch,
  addStartedCells,
  type BatchItem,
  cellObjectKey,
  claimBatch,
  countBatch,
  deleteRun,
  finishBatch,
  getBatch,
  loadSnapshot,
  type RunSnapshot,
  readHead,
  type StoredCell,
} from './store.ts';

/**
 * The row worker: one delivery of a batch message claims the batch (conditional, with a lease), reads
 * its rows from the dataset's chunks, runs each row's columns in position order with the node
 * executors, writes the batch's cells in one write conditioned on the attempt, counts the batch once on
 * the head, and the worker that counts the last one completes the run. A message for a batch that is
 * DONE only repeats the counting and the completion check (idempotent), which finishes what a crashed
 * worker left undone; one for a batch another worker holds is dropped (that worker's message comes back
 * if it dies).
 */
export interface RowWorkerDeps extends CompletionDeps {
  execute(
    node: { node_type: string; configuration: Record<string, unknown> },
    context: NodeContext,
  ): Promise<unknown>;
  ports: NodePorts;
  /** Sends batch messages (the run's fan-out). */
  send(messages: RowsMessage[]): Promise<void>;
  /** Sends a batch message again, to be delivered `delaySeconds` later (a batch held under a lease). */
  sendLater(message: RowsMessage, delaySeconds: number): Promise<void>;
}

export async function defaultRowWorkerDeps(): Promise<RowWorkerDeps> {
  const [{ NODE_PORTS }, { executeNode }, { sendJob, sendJobs }] = await Promise.all([
    import('#shared/workflows/nodes/ports.ts'),
    import('#shared/workflows/nodes/registry.ts'),
    import('#shared/platform/jobs.ts'),
  ]);
  return {
    ...defaultCompletionDeps,
    execute: executeNode,
    ports: NODE_PORTS,
    send: (messages) => sendJobs(REPORT_ROWS_QUEUE.name, messages),
    sendLater: (message, delaySeconds) => sendJob(REPORT_ROWS_QUEUE.name, message, { delaySeconds }),
  };
}

export const reportRowsMessageSchema = z.discriminatedUnion('type', [
  z.object({
    v: z.literal(1),
    type: z.literal('report-run-start'),
    ws: z.int(),
    reportId: z.int(),
    run: z.int(),
  }),
  z.object({
    v: z.literal(1),
    type: z.literal('report-rows'),
    ws: z.int(),
    reportId: z.int(),
    run: z.int(),
    batch: z.int().check(z.gte(0)),
  }),
]);

/** A cell's error message keeps at most this many characters (user code may throw anything). */
export const MAX_CELL_ERROR_CHARS = 4096;
/**
 * The cells of a batch as stored on its item stay under this many bytes (DynamoDB's item limit is
 * 400 KB); beyond it the largest cells move to S3, one object each, until they fit.
 */
export const CELLS_INLINE_BYTES = 300 * 1024;
/** Room left before the worker's own timeout for writing the cells and counting them. */
const WRITE_MARGIN_MS = 15_000;
export const INTERNAL_ERROR_MESSAGE = 'internal error: the row could not be run';

export interface Delivery {
  receiveCount: number;
  maxReceiveCount?: number;
}

export async function processReportRowsMessage(
  message: ReportRowsQueueMessage,
  delivery: Delivery,
  deps: RowWorkerDeps,
): Promise<void> {
  if (message.type === 'report-run-start') return fanOut(message, deps);
  const run = await runOf(message);
  // Another run started since (this one completed): nothing of this one is left to do.
  if (!run) return;
  const { snapshot } = run;
  const rows = rowsOf(message.batch, run.batchSize, run.rowCount);
  const cellCount = rows.count * snapshot.columns.length;
  const now = deps.now();
  const claimed = await claimBatch(
    message.ws,
    message.reportId,
    message.run,
    message.batch,
    now,
    REPORT_LEASE_MS,
  );
  if (!claimed) {
    const item = await getBatch(message.ws, message.reportId, message.run, message.batch);
    if (item?.status === 'DONE') await afterBatch(message, item, deps);
    // Held under a live lease: this may be the message of a worker that died holding it (a restart), or
    // a second delivery while its worker runs. Either way a copy comes back once the lease would have
    // lapsed: it finds the batch DONE, or takes it over.
    else if (item?.status === 'RUNNING')
      await deps.sendLater(message, Math.max(1, (Number(item.leaseUntil ?? 0) - now) / 1000) + 1);
    return;
  }
  const attempt = Number(claimed.attempt);
  if (attempt === 1 && !(await addStartedCells(message.ws, message.reportId, message.run, cellCount))) {
    // A late message of a run that was replaced since (this process still knew it): nothing to run,
    // and the item this claim created would be left in the replaced run's partition.
    await abandonBatch(message.ws, message.reportId, message.run, message.batch, attempt);
    return;
  }
  // Whether this attempt's cells are stored: a failure after that (the count, the completion) on the last
  // delivery must not end this delivery without the batch counted.
  let written = false;
  const finish = async (cells: Record<string, StoredCell>[]) => {
    const outcome = { cells: JSON.stringify(cells), ...countCells(cells) };
    written ||= await finishBatch(
      message.ws,
      message.reportId,
      message.run,
      message.batch,
      attempt,
      outcome,
      deps.now(),
    );
    // Not written: a newer attempt took the batch over, and counts it.
    if (written) await afterBatch(message, outcome, deps);
  };
  if (attempt > MAX_BATCH_ATTEMPTS) {
    logger.error('Report batch given up after repeated attempts', { batch: message.batch, attempt });
    return finish(
      failedCells(snapshot.columns, rows.count, `${INTERNAL_ERROR_MESSAGE} (${attempt - 1} attempts)`),
    );
  }

  const key = batchKey(message.ws, message.reportId, message.run, message.batch);
  const stopRenewal = keepLeased(
    () => renewLease(key, attempt, deps.now() + REPORT_LEASE_MS),
    REPORT_LEASE_RENEW_MS,
    `report batch ${message.batch}`,
  );
  try {
    const values = await datasetRows(snapshot, rows.from, rows.count);
    const deadline = now + REPORT_ROWS_QUEUE.timeoutSeconds * 1000 - WRITE_MARGIN_MS;
    const cells: Record<string, StoredCell>[] = new Array(rows.count);
    await forEachLimited(values, ROWS_IN_FLIGHT, async (row, index) => {
      cells[index] = await runRow(
        snapshot,
        row,
        { ws: message.ws, reportId: message.reportId, run: message.run, deadline },
        deps,
      );
    });
    await finish(await fitCells(cells, message, attempt, rows.from));
  } catch (error) {
    const lastDelivery =
      delivery.receiveCount >= (delivery.maxReceiveCount ?? REPORT_ROWS_QUEUE.maxReceiveCount);
    if (!lastDelivery) {
      // The next delivery may claim the batch at once instead of waiting out this lease.
      await releaseLease(key, attempt);
      throw error;
    }
    if (written) {
      // The cells are stored; counting them or completing the run failed: once more, as SQS will not.
      logger.error('Report batch not counted on its last delivery: counting it again', {
        batch: message.batch,
        error: error as Error,
      });
      const item = await getBatch(message.ws, message.reportId, message.run, message.batch);
      if (item?.status === 'DONE') await afterBatch(message, item, deps);
      return;
    }
    logger.error('Report batch failed on its last delivery: its cells are FAILED', {
      batch: message.batch,
      error: error as Error,
    });
    await finish(failedCells(snapshot.columns, rows.count, INTERNAL_ERROR_MESSAGE));
  } finally {
    stopRenewal();
  }
}

interface RunInfo {
  batchSize: number;
  rowCount: number;
  snapshot: RunSnapshot;
}
// What a run works on never changes: read from the head once per process and run.
const RUN_CACHE_SIZE = 16;
const runs = new Map<string, RunInfo>();
async function runOf(message: RowsMessage): Promise<RunInfo | undefined> {
  const cacheKey = `${message.ws}/${message.reportId}/${message.run}`;
  const cached = runs.get(cacheKey);
  if (cached) return cached;
  const run = (await readHead(message.ws, message.reportId))?.run;
  if (!run || run.number !== message.run) return undefined;
  const info = {
    batchSize: run.batchSize,
    rowCount: run.rowCount,
    snapshot: await loadSnapshot(message.ws, message.reportId, run),
  };
  if (runs.size >= RUN_CACHE_SIZE) runs.delete(runs.keys().next().value!);
  runs.set(cacheKey, info);
  return info;
}

/** Rows [from, from + count) of batch `batch`. */
export function rowsOf(batch: number, batchSize: number, rowCount: number) {
  const from = batch * batchSize;
  return { from, count: Math.max(0, Math.min(batchSize, rowCount - from)) };
}

/** The run's first message: one message per batch (sent again on redelivery, which is harmless). */
async function fanOut(
  message: Extract<ReportRowsQueueMessage, { type: 'report-run-start' }>,
  deps: RowWorkerDeps,
) {
  const head = await readHead(message.ws, message.reportId);
  const run = head?.run;
  if (!run || run.number !== message.run || run.status !== 'RUNNING') return;
  const messages: RowsMessage[] = Array.from({ length: run.batchCount }, (_, batch) => ({
    v: 1,
    type: 'report-rows',
    ws: message.ws,
    reportId: message.reportId,
    run: message.run,
    batch,
  }));
  await deps.send(messages);
  // The run this one replaced: its cells are never read again.
  if (message.run > 1) await deleteRun(message.ws, message.reportId, message.run - 1);
}

/** A DONE batch: counted once on the head; the run completes once every cell is counted. */
async function afterBatch(
  message: RowsMessage,
  counts: Pick<BatchItem, 'completedCells' | 'failedCells'>,
  deps: RowWorkerDeps,
): Promise<void> {
  const run = await countBatch(message.ws, message.reportId, message.run, message.batch, {
    completedCells: Number(counts.completedCells ?? 0),
    failedCells: Number(counts.failedCells ?? 0),
  });
  // Counted now and cells are left: another batch completes the run. Counted before (a redelivery):
  // the completion check is repeated, as the worker that counted may have died before it.
  if (run && run.completedCells + run.failedCells < run.cellCount) return;
  await completeRunIfDone(message.ws, message.reportId, message.run, deps);
}

// Chunks never change: the worker keeps the last few it parsed (batches of one chunk follow each other).
const CHUNK_CACHE_SIZE = 2;
const cachedChunk = keepingChunkReader(CHUNK_CACHE_SIZE);

async function datasetRows(snapshot: RunSnapshot, from: number, count: number): Promise<unknown[][]> {
  if (!snapshot.dataset.manifestKey || count === 0) return [];
  const manifest = await readManifest(snapshot.dataset.manifestKey);
  return rowWindow(manifest, from, count, cachedChunk);
}

/**
 * One row: its columns in position order, each reading the row's dataset values and the earlier
 * columns' values by name (a FAILED one reads as null). A column whose dependency FAILED is FAILED
 * without running; the others still run.
 */
async function runRow(
  snapshot: RunSnapshot,
  row: unknown[],
  where: { ws: number; reportId: number; run: number; deadline: number },
  deps: RowWorkerDeps,
): Promise<Record<string, StoredCell>> {
  const inputs: Record<string, unknown> = {};
  const define = (name: string, value: unknown) =>
    Object.defineProperty(inputs, name, { value, enumerable: true, writable: true, configurable: true });
  for (const [index, name] of snapshot.dataset.columns.entries()) define(name, row[index] ?? null);
  const failed = new Set<string>();
  const cells: Record<string, StoredCell> = {};
  for (const column of snapshot.columns) {
    const failedDependency = columnDependencies(column, snapshot.columns).find((name) => failed.has(name));
    let cell: StoredCell;
    if (failedDependency !== undefined) {
      cell = { s: 'FAILED', v: null, e: `depends on column "${failedDependency}", which failed` };
    } else {
      try {
        const value = await deps.execute(
          { node_type: column.columnType, configuration: column.configuration },
          {
            workspaceId: where.ws,
            inputs: { ...inputs },
            deadline: where.deadline,
            ports: deps.ports,
            origin: { reportId: where.reportId, reportRunNumber: where.run, columnName: column.name },
          },
        );
        cell = { s: 'COMPLETED', v: value ?? null };
      } catch (error) {
        if (!(error instanceof NodeFailure)) throw error;
        cell = { s: 'FAILED', v: null, e: clip(error.message, MAX_CELL_ERROR_CHARS) };
      }
    }
    if (cell.s === 'FAILED') failed.add(column.name);
    define(column.name, cell.s === 'COMPLETED' ? cell.v : null);
    cells[String(column.id)] = cell;
  }
  return cells;
}

function failedCells(
  columns: readonly ReportColumn[],
  rows: number,
  message: string,
): Record<string, StoredCell>[] {
  return Array.from({ length: rows }, () =>
    Object.fromEntries(
      columns.map((column) => [String(column.id), { s: 'FAILED', v: null, e: message } as StoredCell]),
    ),
  );
}

function countCells(cells: Record<string, StoredCell>[]) {
  let completedCells = 0;
  let failedCells = 0;
  for (const row of cells)
    for (const cell of Object.values(row)) {
      if (cell.s === 'COMPLETED') completedCells++;
      else failedCells++;
    }
  return { completedCells, failedCells };
}

/** Moves the largest cells to S3 (one object each: `{v, e}`) until the batch's cells fit its item. */
async function fitCells(
  cells: Record<string, StoredCell>[],
  message: RowsMessage,
  attempt: number,
  fromRow: number,
): Promise<Record<string, StoredCell>[]> {
  const sizes: { row: number; column: string; bytes: number }[] = [];
  let total = 2;
  cells.forEach((row, index) => {
    for (const [column, cell] of Object.entries(row)) {
      const bytes = Buffer.byteLength(JSON.stringify(cell)) + column.length + 4;
      sizes.push({ row: index, column, bytes });
      total += bytes;
    }
  });
  if (total <= CELLS_INLINE_BYTES) return cells;
  sizes.sort((a, b) => b.bytes - a.bytes);
  const moves: Promise<void>[] = [];
  for (const size of sizes) {
    if (total <= CELLS_INLINE_BYTES) break;
    const row = cells[size.row]!;
    const cell = row[size.column]!;
    const objectKey = cellObjectKey(
      message.ws,
      message.reportId,
      message.run,
      message.batch,
      attempt,
      fromRow + size.row,
      Number(size.column),
    );
    row[size.column] = { s: cell.s, k: objectKey };
    total -= size.bytes - Buffer.byteLength(JSON.stringify(row[size.column]));
    moves.push(storeJson(objectKey, { v: cell.v ?? null, e: cell.e ?? null }, 0).then(() => undefined));
  }
  await Promise.all(moves);
  return cells;
}
