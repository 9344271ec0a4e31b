import { loadJson } from '#shared/platform/stored-json.ts';
import type { CellStatus, ReportRecord } from '../records.ts';
import {
  batchOfKey,
  loadSnapshot,
  queryBatches,
  readHead,
  type StoredCell,
  type StoredRunState,
} from './store.ts';

/**
 * The cells of a report's latest run, as the rows endpoint and the score read them.
 */
export interface Cell {
  status: CellStatus;
  value: unknown;
  error_message: string | null;
}

/**
 * Cells of rows [fromRow, fromRow + count) of the report's latest run, one map (column id -> cell) per
 * row; a column the run did not have (added since, or no run yet) is absent from the map. Rows past the
 * run's last row are not answered. One Query over the batches that hold the rows; values stored in S3
 * are loaded. A batch not DONE yet answers its cells QUEUED or RUNNING (value null). With `columns`,
 * only those columns' cells are answered (and only their values loaded from S3).
 */
export async function readRowCells(
  report: ReportRecord,
  fromRow: number,
  count: number,
  options: { columns?: ReadonlySet<number> } = {},
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
  const loads: Promise<void>[] = [];
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
        const answered: Cell = { status: cell.s, value: cell.v ?? null, error_message: cell.e ?? null };
        cells.set(Number(id), answered);
        if (cell.k !== undefined) {
          const key = cell.k;
          loads.push(
            loadJson({ key }).then((loaded) => {
              const { v, e } = (loaded ?? {}) as { v?: unknown; e?: string | null };
              answered.value = v ?? null;
              answered.error_message = e ?? null;
            }),
          );
        }
      }
    } else {
      columnIds ??= await runColumnIds(report, run);
      const status: CellStatus = item?.status === 'RUNNING' ? 'RUNNING' : 'QUEUED';
      for (const id of columnIds) {
        if (wanted(id)) cells.set(id, { status, value: null, error_message: null });
      }
    }
  }
  await Promise.all(loads);
  return answer;
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
