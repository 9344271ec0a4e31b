import { getObjectText, headObject } from '#shared/platform/blob-store.ts';
import { forEachLimited } from '#shared/platform/concurrency.ts';
import { readHead, type StoredRunState } from '../head.ts';
import type { CellStatus, ReportRecord } from '../records.ts';
import { batchOfKey, queryBatches, type StoredCell } from './batches.ts';
import { loadSnapshot } from './objects.ts';

/**
 * The cells of a report's latest run, as the rows endpoint and the score read them.
 */
export interface Cell {
  status: CellStatus;
  value: unknown;
  error_message: string | null;
  /** The request log the cell's node recorded. */
  requestLogId?: number;
  /**
   * Set when the cell's value and error are held in S3 and were not loaded (past `valueBudgetBytes`):
   * the size of the stored JSON (`{v, e}`), about that of the value's JSON.
   */
  omittedBytes?: number;
}

/** S3 objects of cells loaded at once. */
const S3_LOADS_AT_ONCE = 4;

/**
 * Cells of rows [fromRow, fromRow + count) of the report's latest run, one map (column id -> cell) per
 * row; a column the run did not have (added since, or no run yet) is absent from the map. Rows past the
 * run's last row are not answered. One Query over the batches that hold the rows; values stored in S3
 * are loaded (a few at a time). A batch not DONE yet answers its cells QUEUED or RUNNING (value null).
 * With `columns`, only those columns' cells are answered (and only their values loaded from S3). With
 * `valueBudgetBytes`, S3 values stop being loaded once that much was: the others answer `omittedBytes`
 * (one HEAD each), so that what a reader holds stays bounded whatever the cells' sizes.
 */
export async function readRowCells(
  report: ReportRecord,
  fromRow: number,
  count: number,
  options: { columns?: ReadonlySet<number>; valueBudgetBytes?: number } = {},
): Promise<Map<number, Cell>[]> {
  const wanted = (id: number) => options.columns === undefined || options.columns.has(id);
  const run = report.run as StoredRunState | undefined;
  if (!run) return [];
  const from = Math.max(0, fromRow);
  const to = Math.min(run.rowCount, fromRow + count);
  if (to <= from) return [];
  const firstBatch = Math.floor(from / run.batchSize);
  const lastBatch = Math.floor((to - 1) / run.batchSize);
  const items = await queryBatches(report.workspaceId, report.id, run.number, firstBatch, lastBatch);
  const byBatch = new Map(items.map((item) => [batchOfKey(item.SK), item]));

  const answer: Map<number, Cell>[] = [];
  const loads: { key: string; cell: Cell }[] = [];
  let columnIds: number[] | undefined;
  const parsedCells = new Map<number, Record<string, StoredCell>[]>();
  for (let row = from; row < to; row++) {
    const batch = Math.floor(row / run.batchSize);
    const item = byBatch.get(batch);
    const cells = new Map<number, Cell>();
    answer.push(cells);
    if (item?.status === 'DONE' && item.cells !== undefined) {
      let parsed = parsedCells.get(batch);
      if (!parsed) {
        parsed = JSON.parse(item.cells) as Record<string, StoredCell>[];
        parsedCells.set(batch, parsed);
      }
      const stored = parsed[row - batch * run.batchSize] ?? {};
      for (const [id, cell] of Object.entries(stored)) {
        if (!wanted(Number(id))) continue;
        const answered: Cell = {
          status: cell.s,
          value: cell.v ?? null,
          error_message: cell.e ?? null,
          ...(cell.l === undefined ? {} : { requestLogId: cell.l }),
        };
        cells.set(Number(id), answered);
        if (cell.k !== undefined) loads.push({ key: cell.k, cell: answered });
      }
    } else {
      columnIds ??= await runColumnIds(report, run);
      const status: CellStatus = item?.status === 'RUNNING' ? 'RUNNING' : 'QUEUED';
      for (const id of columnIds) {
        if (wanted(id)) cells.set(id, { status, value: null, error_message: null });
      }
    }
  }
  await loadValues(loads, options.valueBudgetBytes ?? Number.POSITIVE_INFINITY);
  return answer;
}

/** Loads the cells' values held in S3 in row order while within `budget` bytes; sizes the others. */
async function loadValues(loads: readonly { key: string; cell: Cell }[], budget: number): Promise<void> {
  let loaded = 0;
  await forEachLimited(loads, S3_LOADS_AT_ONCE, async ({ key, cell }) => {
    if (loaded >= budget) {
      cell.omittedBytes = (await headObject(key))?.contentLength ?? 0;
      return;
    }
    const text = await getObjectText(key);
    loaded += Buffer.byteLength(text);
    const { v, e } = JSON.parse(text) as { v?: unknown; e?: string | null };
    cell.value = v ?? null;
    cell.error_message = e ?? null;
  });
}

/** The column ids of a run (its snapshot, read from the head when the given record lacks it). */
async function runColumnIds(report: ReportRecord, run: StoredRunState): Promise<number[]> {
  let stored = run;
  if (stored.snapshotJson === undefined && stored.snapshotKey === undefined) {
    const head = await readHead(report.workspaceId, report.id);
    if (head?.run?.number !== run.number) return [];
    stored = head.run;
  }
  const snapshot = await loadSnapshot(report.workspaceId, report.id, stored);
  return snapshot.columns.map((column) => column.id);
}
