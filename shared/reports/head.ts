import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryIndexPartition, table, unlessConditionFails } from '#shared/platform/dynamo.ts';
import { conflict, notFound } from '#shared/platform/errors.ts';
import { putNewItem, updateItem } from '#shared/platform/items.ts';
import type { Condition } from '#shared/platform/lease.ts';
import { reportKey, reportListPartition } from './keys.ts';
import {
  type ReportRecord,
  type ReportRunState,
  type ReportScore,
  runFromStorage,
  type ScoreConfiguration,
  scoreForStorage,
} from './records.ts';

/**
 * The report head (`W#<ws>#RPT#<id>` / `RPT`): the one module that reads it and writes it, its
 * definition's attributes and its latest run's state (`run`, with the snapshot inline or its S3 key,
 * and `runCountedBatches`, the string set of batches counted into the run's counters). The column
 * lock's attributes (`columnsRevision`, `columnsEditUntil`) are column-lock.ts's; a run's batches are
 * run/batches.ts's, its S3 objects run/objects.ts's. Access patterns: docs/data-model.md.
 */
type Item = Record<string, unknown>;

const padId = (id: number) => String(id).padStart(16, '0');

function headItem(report: ReportRecord): Item {
  const { run: _run, ...fields } = report;
  return {
    ...reportKey(report.workspaceId, report.id),
    GSI1PK: reportListPartition(report.workspaceId),
    GSI1SK: `${report.createdAt}#${padId(report.id)}`,
    ...fields,
    columnsRevision: 0,
  };
}

/** Writes a new report's head (its columns are written before it): false when the id is taken. */
export async function putNewHead(report: ReportRecord): Promise<boolean> {
  return putNewItem(headItem(report) as Item & { PK: string; SK: string });
}

export function reportFromItem(item: Item): ReportRecord {
  const nullableNumber = (value: unknown) => (value == null ? null : Number(value));
  return {
    id: Number(item.id),
    workspaceId: Number(item.workspaceId),
    name: String(item.name),
    comment: (item.comment as string | null | undefined) ?? null,
    tags: (item.tags as string[] | undefined) ?? [],
    folderId: nullableNumber(item.folderId),
    datasetGroupId: Number(item.datasetGroupId),
    datasetId: Number(item.datasetId),
    datasetVersionNumber: Number(item.datasetVersionNumber),
    isBlueprint: item.isBlueprint === true,
    parentReportId: nullableNumber(item.parentReportId),
    scoreConfiguration: (item.scoreConfiguration as ScoreConfiguration | null | undefined) ?? null,
    userId: Number(item.userId),
    userEmail: (item.userEmail as string | undefined) ?? undefined,
    createdAt: String(item.createdAt),
    updatedAt: String(item.updatedAt),
    deleted: item.deleted === true,
    hasExternalIds: item.hasExternalIds === true,
    run: runFromStorage(item.run as ReportRunState | undefined),
  };
}

/** The head item as stored (deleted ones included), or undefined. */
export async function getHeadItem(
  workspaceId: number,
  reportId: number,
  consistent = false,
): Promise<Item | undefined> {
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: table(), Key: reportKey(workspaceId, reportId), ConsistentRead: consistent }),
  );
  return Item;
}

/** The workspace's report of that id, or undefined (another workspace's, unknown, or deleted unless asked). */
export async function getReport(
  ws: number,
  reportId: number,
  options: { includeDeleted?: boolean; consistent?: boolean } = {},
): Promise<ReportRecord | undefined> {
  const item = await getHeadItem(ws, reportId, options.consistent);
  if (!item) return undefined;
  const report = reportFromItem(item);
  return report.deleted && !options.includeDeleted ? undefined : report;
}

export const reportNotFound = (reportId: number) => notFound(`Report ${reportId} not found`);

/** As getReport, or a 404 "Report <id> not found". */
export async function requireReport(ws: number, reportId: number): Promise<ReportRecord> {
  const report = await getReport(ws, reportId);
  if (!report) throw reportNotFound(reportId);
  return report;
}

/** Every report head of the workspace (copies and deleted ones included): one GSI1 Query, paged through. */
export async function listReportHeads(ws: number): Promise<ReportRecord[]> {
  return (await queryIndexPartition('GSI1', reportListPartition(ws))).map(reportFromItem);
}

/** Whether a report of that id was ever written (deleted ones included): external-id claims ask it. */
export async function reportExists(ws: number, reportId: number): Promise<boolean> {
  return (await getHeadItem(ws, reportId, true)) !== undefined;
}

/** Whether the report of that id was deleted (archived): external-id claims ask it. */
export async function reportDeleted(ws: number, reportId: number): Promise<boolean> {
  return (await getReport(ws, reportId, { includeDeleted: true, consistent: true }))?.deleted === true;
}

/** The head's own attributes a definition route changes (never `run`). */
export interface HeadChange {
  name?: string;
  tags?: string[];
  scoreConfiguration?: ScoreConfiguration | null;
  deleted?: boolean;
  hasExternalIds?: boolean;
}

/**
 * One UpdateItem of the head's own attributes (updatedAt too unless `touch` is false), on a live
 * report only: a 404 when it is gone or deleted meanwhile. Answers the head as written.
 */
export async function updateReportHead(
  ws: number,
  reportId: number,
  change: HeadChange,
  options: { touch?: boolean } = {},
): Promise<ReportRecord> {
  const set: Item = { ...change };
  if (options.touch !== false) set.updatedAt = new Date().toISOString();
  const written = await updateItem(reportKey(ws, reportId), {
    set,
    condition: 'attribute_exists(PK) AND #deleted = :live',
    values: { ':live': false },
  });
  if (!written) throw reportNotFound(reportId);
  const report = await getReport(ws, reportId, { consistent: true, includeDeleted: change.deleted === true });
  if (!report) throw reportNotFound(reportId);
  return report;
}

export function reportRunning(reportId: number) {
  return conflict(`Report ${reportId} is running; wait for its run to finish`, 'report_running');
}

/** The run state as stored: the contract's counters plus where the snapshot is. */
export type StoredRunState = ReportRunState & { snapshotJson?: string; snapshotKey?: string };

const KEY_ATTRIBUTES = ['PK', 'SK', 'GSI1PK', 'GSI1SK', 'GSI2PK', 'GSI2SK'];

/** The head as stored (deleted ones included), read consistently; undefined when there is none. */
export async function readHead(
  ws: number,
  reportId: number,
): Promise<(ReportRecord & { run?: StoredRunState }) | undefined> {
  const Item = await getHeadItem(ws, reportId, true);
  if (!Item) return undefined;
  for (const name of KEY_ATTRIBUTES) delete Item[name];
  delete Item.runCountedBatches;
  return { ...Item, run: runFromStorage(Item.run as StoredRunState | undefined) } as ReportRecord & {
    run?: StoredRunState;
  };
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
  /** The column lock's condition (column-lock.ts `columnsUnlocked`). */
  columnsUnlocked: Condition,
): Promise<BeginOutcome> {
  const previous = run.number - 1;
  const started = await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression:
          'SET #run = :run, datasetId = :dataset, datasetVersionNumber = :version, updatedAt = :now REMOVE runCountedBatches',
        ConditionExpression:
          'attribute_exists(PK) AND (attribute_not_exists(deleted) OR deleted = :false) AND ' +
          `${columnsUnlocked.expression} AND ` +
          (previous === 0
            ? 'attribute_not_exists(#run)'
            : '#run.#number = :previous AND #run.#status <> :running'),
        ExpressionAttributeNames: {
          '#run': 'run',
          ...columnsUnlocked.names,
          ...(previous === 0 ? {} : { '#number': 'number', '#status': 'status' }),
        },
        ExpressionAttributeValues: {
          ':run': run,
          ':dataset': dataset.id,
          ':version': dataset.versionNumber,
          ':now': now,
          ':false': false,
          ...columnsUnlocked.values,
          ...(previous === 0 ? {} : { ':previous': previous, ':running': 'RUNNING' }),
        },
      }),
    ),
  );
  if (started) return 'started';
  const head = await readHead(ws, reportId);
  if (!head || head.deleted) return 'gone';
  return head.run?.status === 'RUNNING' ? 'running' : 'changed';
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

/**
 * Sets the score of the head's latest run again (the score configuration changed), unless a run started
 * meanwhile owns `run`: that score would be of a run that is no longer the latest.
 */
export async function setRunScore(
  ws: number,
  reportId: number,
  run: number,
  outcome: { score: ReportScore | null; scoreError: string | null },
): Promise<void> {
  await unlessConditionFails(
    dynamo.send(
      new UpdateCommand({
        TableName: table(),
        Key: reportKey(ws, reportId),
        UpdateExpression: 'SET #run.#score = :score, #run.#scoreError = :scoreError',
        ConditionExpression: '#run.#number = :number',
        ExpressionAttributeNames: {
          '#run': 'run',
          '#score': 'score',
          '#scoreError': 'scoreError',
          '#number': 'number',
        },
        ExpressionAttributeValues: {
          ':score': scoreForStorage(outcome.score),
          ':scoreError': outcome.scoreError,
          ':number': run,
        },
      }),
    ),
  );
}
