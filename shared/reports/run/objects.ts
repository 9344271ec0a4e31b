import { deletePrefix } from '#shared/platform/blob-store.ts';
import { loadJson } from '#shared/platform/stored-json.ts';
import type { StoredRunState } from '../head.ts';
import type { ReportColumn } from '../records.ts';

/**
 * A run's S3 objects, below `report-runs/<ws>/<report>/<run>/`: its snapshot when too big for the head,
 * and the cells too big for their batch item.
 */
export const RUN_OBJECT_PREFIX = 'report-runs/';
const runObjectBase = (ws: number, reportId: number, run: number) =>
  `${RUN_OBJECT_PREFIX}${ws}/${reportId}/${run}/`;
/**
 * Per request (`token`, unique): two requests that race to start run `run` both store a snapshot
 * before one of them wins the start write; the loser's must never replace the winner's.
 */
export const snapshotObjectKey = (ws: number, reportId: number, run: number, token: string) =>
  `${runObjectBase(ws, reportId, run)}snapshot-${token}.json`;
/** Per attempt: a stale attempt never overwrites an object the winning one points to. */
export const cellObjectKey = (
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  attempt: number,
  row: number,
  columnId: number,
) => `${runObjectBase(ws, reportId, run)}b${batch}/${attempt}/${row}-${columnId}.json`;

/** What a run works on, taken when it starts: the columns and the dataset version's rows. */
export interface RunSnapshot {
  columns: ReportColumn[];
  dataset: {
    id: number;
    versionNumber: number;
    /** The S3 manifest of the rows; null when the dataset has none. */
    manifestKey: string | null;
    columns: string[];
    rowCount: number;
  };
}

const SNAPSHOT_CACHE_SIZE = 16;
const snapshots = new Map<string, RunSnapshot>();

/** A run's snapshot (kept per process: it never changes). */
export async function loadSnapshot(ws: number, reportId: number, run: StoredRunState): Promise<RunSnapshot> {
  const cacheKey = `${ws}/${reportId}/${run.number}`;
  const cached = snapshots.get(cacheKey);
  if (cached) return cached;
  const snapshot = (await loadJson({ json: run.snapshotJson, key: run.snapshotKey })) as RunSnapshot;
  if (snapshots.size >= SNAPSHOT_CACHE_SIZE) snapshots.delete(snapshots.keys().next().value!);
  snapshots.set(cacheKey, snapshot);
  return snapshot;
}

/** Removes every object of a run (a replaced run, a run abandoned before it got going). */
export async function deleteRunObjects(ws: number, reportId: number, run: number): Promise<void> {
  await deletePrefix(runObjectBase(ws, reportId, run));
}
