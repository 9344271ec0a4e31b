import { DeleteCommand, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchWriteItems } from '#shared/platform/batch.ts';
import { deletePrefix } from '#shared/platform/blob-store.ts';
import { dynamo, isConditionFailed, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { claimLease, heldBy } from '#shared/platform/lease.ts';
import { loadJson } from '#shared/platform/stored-json.ts';
import { batchKey, reportKey, runPartition } from '../keys.ts';
import {
  type ReportColumn,
  type ReportRecord,
  type ReportRunState,
  type ReportScore,
  runFromStorage,
  scoreForStorage,
} from '../records.ts';

/**
 * The items of a report run (docs/report-runs.md):
 *
 *   PK `W#<ws>#RPT#<id>`          SK `RPT`        the head: `run` (ReportRunState, with the snapshot
 *                                                 inline or its S3 key) and `runCountedBatches`, the
 *                                                 string set of batches counted into the run's counters
 *   PK `W#<ws>#RPT#<id>#RUN#<n>`  SK `B#<batch>`  one batch of rows: its claim (status QUEUED|RUNNING|
 *                                                 DONE, attempt, lease) and, once DONE, its cells
 *
 * Values too big for the batch item (and the snapshot when big) live in S3 below `report-runs/`.
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

/** The run state as stored: the contract's counters plus where the snapshot is. */
export type StoredRunState = ReportRunState & { snapshotJson?: string; snapshotKey?: string };

/** A stored cell: its status, and its value and error inline, or the S3 key of `{v, e}`. */
export interface StoredCell {
  s: 'COMPLETED' | 'FAILED';
  v?: unknown;
  e?: string;
  k?: string;
  /** The request log the cell's node recorded (PROMPT_TEMPLATE, LLM_ASSERTION). */
  l?: number;
}

/** One batch item. `cells` (JSON): one object per row of the batch, column id -> stored cell. */
export interface BatchItem {
  status: 'QUEUED' | 'RUNNING' | 'DONE';
  attempt?: number;
  leaseUntil?: number;
  startedAt?: number;
  finishedAt?: number;
  cells?: string;
  completedCells?: number;
  failedCells?: number;
  SK: string;
}

const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK'];

/** The head as stored (deleted ones included), read consistently; undefined when there is none. */
export async function readHead(
  ws: number,
  reportId: number,
): Promise<(ReportRecord & { run?: StoredRunState }) | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: reportKey(ws, reportId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  for (const name of KEY_ATTRIBUTES) delete Item[name];
  delete Item.runCountedBatches;
  return { ...Item, run: runFromStorage(Item.run as StoredRunState | undefined) } as ReportRecord & {
    run?: StoredRunState;
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

export type BeginOutcome = 'started' | 'running' | 'changed' | 'gone';

/**
 * Makes `run` the head's latest run, unless a run is RUNNING (or another request started run
 * `run.number` first), or the columns changed since the snapshot read them (`columnsRevision`), or a
 * column edit is writing them (its lease, withColumnsLocked): one conditional write, which also moves
 * the report onto the dataset version the run reads and clears the previous run's counted batches.
 */
export async function beginRun(
  ws: number,
  reportId: number,
  run: StoredRunState,
  dataset: { id: number; versionNumber: number },
  now: string,
  columnsRevision: number,
): Promise<BeginOutcome> {
  const previous = run.number - 1;
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression:
          'SET #run = :run, datasetId = :dataset, datasetVersionNumber = :version, updatedAt = :now REMOVE runCountedBatches',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(deleted) OR deleted = :false) AND ' +
          '(attribute_not_exists(columnsRevision) OR columnsRevision = :revision) AND ' +
          '(attribute_not_exists(columnsEditUntil) OR columnsEditUntil < :nowMs) AND ' +
          (previous === 0
            ? 'attribute_not_exists(#run)'
            : '#run.#number = :previous AND #run.#status <> :running'),
        ExpressionAttributeNames: {
          '#run': 'run',
          ...(previous === 0 ? {} : { '#number': 'number', '#status': 'status' }),
        },
        ExpressionAttributeValues: {
          ':run': run,
          ':dataset': dataset.id,
          ':version': dataset.versionNumber,
          ':now': now,
          ':false': false,
          ':revision': columnsRevision,
          ':nowMs': Date.parse(now),
          ...(previous === 0 ? {} : { ':previous': previous, ':running': 'RUNNING' }),
        },
      }),
    );
    return 'started';
  } catch (error) {
    if (!isConditionFailed(error)) throw error;
    const head = await readHead(ws, reportId);
    if (!head || head.deleted) return 'gone';
    return head.run?.status === 'RUNNING' ? 'running' : 'changed';
  }
}

/**
 * Undoes `beginRun` of a run that never got going (its first message could not be queued): the head's
 * run is the one before it again (every batch of which was counted: it had ended), on the dataset
 * version it had. Conditioned on the run being that run, RUNNING, with no batch started. Answers
 * whether it applied.
 */
export async function abandonRun(
  ws: number,
  reportId: number,
  run: number,
  before: { run?: StoredRunState; datasetId: number; datasetVersionNumber: number },
): Promise<boolean> {
  const previous = before.run;
  const counted = previous && previous.batchCount > 0;
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression: `SET ${previous ? '#run = :previous, ' : ''}datasetId = :dataset, datasetVersionNumber = :version${counted ? ', runCountedBatches = :counted' : ''}${previous ? '' : ' REMOVE #run'}`,
        ConditionExpression: '#run.#number = :run AND #run.#status = :running AND #run.startedCells = :none',
        ExpressionAttributeNames: { '#run': 'run', '#number': 'number', '#status': 'status' },
        ExpressionAttributeValues: {
          ...(previous ? { ':previous': previous } : {}),
          ...(counted
            ? {
                ':counted': new Set(Array.from({ length: previous.batchCount }, (_, batch) => String(batch))),
              }
            : {}),
          ':dataset': before.datasetId,
          ':version': before.datasetVersionNumber,
          ':run': run,
          ':running': 'RUNNING',
          ':none': 0,
        },
      }),
    ),
  );
  if (result === undefined) return false;
  await deletePrefix(runObjectBase(ws, reportId, run));
  return true;
}

/** Claims a batch (an absent item is QUEUED): the batch item as claimed, or undefined. */
export function claimBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  now: number,
  leaseMs: number,
): Promise<BatchItem | undefined> {
  return claimLease<BatchItem>(batchKey(ws, reportId, run, batch), { now, leaseMs, absentIsQueued: true });
}

export async function getBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
): Promise<BatchItem | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: batchKey(ws, reportId, run, batch), ConsistentRead: true }),
  );
  return Item as BatchItem | undefined;
}

/**
 * Writes a batch's cells and makes it DONE, conditioned on the attempt that claimed it: answers whether
 * this write did it (a stale attempt's write is refused).
 */
export async function finishBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  attempt: number,
  outcome: { cells: string; completedCells: number; failedCells: number },
  now: number,
): Promise<boolean> {
  const held = heldBy(attempt);
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: batchKey(ws, reportId, run, batch),
        UpdateExpression:
          'SET #lstatus = :done, cells = :cells, completedCells = :completed, failedCells = :failed, finishedAt = :now REMOVE leaseUntil',
        ConditionExpression: held.expression,
        ExpressionAttributeNames: held.names,
        ExpressionAttributeValues: {
          ...held.values,
          ':done': 'DONE',
          ':cells': outcome.cells,
          ':completed': outcome.completedCells,
          ':failed': outcome.failedCells,
          ':now': now,
        },
      }),
    ),
  );
  return result !== undefined;
}

/**
 * The first claim of a batch: its cells count as started on the head. Answers false when the head's
 * run is another one (the batch's run was replaced: its message came late).
 */
export async function addStartedCells(
  ws: number,
  reportId: number,
  run: number,
  cells: number,
): Promise<boolean> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression: 'SET #run.startedCells = #run.startedCells + :cells',
        ConditionExpression: '#run.#number = :run',
        ExpressionAttributeNames: { '#run': 'run', '#number': 'number' },
        ExpressionAttributeValues: { ':cells': cells, ':run': run },
      }),
    ),
  );
  return result !== undefined;
}

/** Removes a batch item this attempt claimed for nothing (its run was replaced). */
export async function abandonBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  attempt: number,
): Promise<void> {
  const held = heldBy(attempt);
  await unlessConditionFails(
    dynamo.send(
      new DeleteCommand({
        TableName: table(),
        Key: batchKey(ws, reportId, run, batch),
        ConditionExpression: held.expression,
        ExpressionAttributeNames: held.names,
        ExpressionAttributeValues: held.values,
      }),
    ),
  );
}

/**
 * Counts a DONE batch into the head's counters, once (its number joins `runCountedBatches`): the run
 * state as it is now, or undefined when the batch was counted before or the run is another one.
 */
export async function countBatch(
  ws: number,
  reportId: number,
  run: number,
  batch: number,
  counts: { completedCells: number; failedCells: number },
): Promise<StoredRunState | undefined> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression:
          'SET #run.completedCells = #run.completedCells + :completed, #run.failedCells = #run.failedCells + :failed ADD runCountedBatches :batches',
        ConditionExpression:
          '#run.#number = :run AND (attribute_not_exists(runCountedBatches) OR NOT contains(runCountedBatches, :batch))',
        ExpressionAttributeNames: { '#run': 'run', '#number': 'number' },
        ExpressionAttributeValues: {
          ':completed': counts.completedCells,
          ':failed': counts.failedCells,
          ':batches': new Set([String(batch)]),
          ':batch': String(batch),
          ':run': run,
        },
        ReturnValues: 'ALL_NEW',
      }),
    ),
  );
  return runFromStorage(result?.Attributes?.run as StoredRunState | undefined);
}

/** The one write that ends a run: RUNNING -> COMPLETED with its score. Answers whether this caller won it. */
export async function markRunCompleted(
  ws: number,
  reportId: number,
  run: number,
  outcome: { score: ReportScore | null; scoreError: string | null; finishedAt: string },
): Promise<boolean> {
  const result = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression:
          'SET #run.#status = :completed, #run.finishedAt = :at, #run.score = :score, #run.scoreError = :error',
        ConditionExpression: '#run.#number = :run AND #run.#status = :running',
        ExpressionAttributeNames: { '#run': 'run', '#number': 'number', '#status': 'status' },
        ExpressionAttributeValues: {
          ':completed': 'COMPLETED',
          ':running': 'RUNNING',
          ':at': outcome.finishedAt,
          ':score': scoreForStorage(outcome.score),
          ':error': outcome.scoreError,
          ':run': run,
        },
      }),
    ),
  );
  return result !== undefined;
}

/** The batch items [from, to] of a run, in order (paged past 1 MB), read consistently. */
export async function queryBatches(
  ws: number,
  reportId: number,
  run: number,
  from: number,
  to: number,
): Promise<BatchItem[]> {
  const items: BatchItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': runPartition(ws, reportId, run),
          ':from': batchKey(ws, reportId, run, from).SK,
          ':to': batchKey(ws, reportId, run, to).SK,
        },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...((page.Items ?? []) as BatchItem[]));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** The batch number of a batch item's sort key. */
export const batchOfKey = (sk: string) => Number(sk.slice(2));

/**
 * Removes what a replaced run left: its batch items (one Query of keys per page, BatchWriteItem deletes)
 * and its S3 objects. Idempotent; the run that replaced it never reads them.
 */
export async function deleteRun(ws: number, reportId: number, run: number): Promise<void> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': runPartition(ws, reportId, run) },
        ProjectionExpression: 'PK, SK',
        ExclusiveStartKey: startKey,
      }),
    );
    const keys = (page.Items ?? []) as { PK: string; SK: string }[];
    if (keys.length) await batchWriteItems(keys.map((Key) => ({ DeleteRequest: { Key } })));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  await deletePrefix(runObjectBase(ws, reportId, run));
}
