import { setTimeout } from 'node:timers/promises';
import { GetCommand, PutCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { KindIdKind } from '#shared/entities/kinds.ts';
import { dynamo, queryIndexPartition, table } from '#shared/platform/dynamo.ts';
import { AppError, conflict, notFound } from '#shared/platform/errors.ts';
import { nextId } from '#shared/platform/ids.ts';
import { deleteItem, getItem, putNewItem, updateItem } from '#shared/platform/items.ts';
import {
  COLUMN_SK_PREFIX,
  columnKey,
  columnPointerKey,
  reportKey,
  reportListPartition,
  reportPartition,
} from './keys.ts';
import {
  type ReportColumn,
  type ReportRecord,
  type ReportRunState,
  runFromStorage,
  type ScoreConfiguration,
} from './records.ts';

/**
 * The report head and its columns: the reads and writes every route of the feature goes through.
 * Keys: keys.ts; access patterns: docs/data-model.md.
 *
 * Write order, so that a crash between two single-item writes leaves nothing a reader sees as broken:
 * - a new report writes its column pointers and columns first and its head last (no head: no report);
 * - a column edit first bumps the head's `columnsRevision` and takes its column lease (conditioned on
 *   the revision it read, on no other edit holding the lease and on no run being RUNNING: an edit during
 *   a run is a 409, one that lost to a concurrent edit starts again, retryColumnEdit), then writes the
 *   columns and gives the lease up (withColumnsLocked). Positions are renumbered 1..n on every read, so a crash in the middle of a shift
 *   leaves at worst a gap;
 * - a new column's pointer is written before the column, a deleted column's after it.
 * The head's `run` attribute belongs to the run; nothing here writes it after the head is created.
 */
type Item = Record<string, unknown>;

const RUNNING = 'RUNNING';

// ------------------------------------------------------------------------------------------- items

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

/**
 * A column's configuration is stored as JSON text, as workflow versions are: any JSON a client sends is
 * kept as sent, where a DynamoDB map could hold neither a number such as 1e200 or 1e-200 nor an
 * integer beyond 2^53 (the SDK refuses those, DynamoDB the others).
 */
const storedConfiguration = (configuration: Record<string, unknown>) => JSON.stringify(configuration);

function columnItem(workspaceId: number, column: ReportColumn): Item {
  return {
    ...columnKey(workspaceId, column.reportId, column.id),
    ...column,
    configuration: storedConfiguration(column.configuration),
  };
}

function configurationFromItem(stored: unknown): Record<string, unknown> {
  if (typeof stored === 'string') return JSON.parse(stored) as Record<string, unknown>;
  return (stored as Record<string, unknown> | undefined) ?? {};
}

function columnFromItem(item: Item): ReportColumn {
  return {
    id: Number(item.id),
    reportId: Number(item.reportId),
    name: String(item.name),
    columnType: item.columnType as ReportColumn['columnType'],
    configuration: configurationFromItem(item.configuration),
    position: Number(item.position),
    isPartOfScore: item.isPartOfScore === true,
  };
}

// ------------------------------------------------------------------------------------------- reads

async function readHead(workspaceId: number, reportId: number, consistent = false) {
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
  const item = await readHead(ws, reportId, options.consistent);
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

/**
 * The report's evaluation columns, ordered by position (ties by id) and numbered 1..n: one Query of
 * the report's partition (`COL#` sort keys).
 */
export async function listColumns(
  ws: number,
  reportId: number,
  options: { consistent?: boolean } = {},
): Promise<ReportColumn[]> {
  const columns: ReportColumn[] = [];
  let startKey: Item | undefined;
  do {
    const page: QueryCommandOutput = await dynamo.send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :col)',
        ExpressionAttributeValues: { ':pk': reportPartition(ws, reportId), ':col': COLUMN_SK_PREFIX },
        ConsistentRead: options.consistent,
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) columns.push(columnFromItem(item));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  columns.sort((a, b) => a.position - b.position || a.id - b.id);
  return columns.map((column, i) => ({ ...column, position: i + 1 }));
}

/** Every report head of the workspace (copies and deleted ones included): one GSI1 Query, paged through. */
export async function listReportHeads(ws: number): Promise<ReportRecord[]> {
  return (await queryIndexPartition('GSI1', reportListPartition(ws))).map(reportFromItem);
}

/** Whether a report of that id was ever written (deleted ones included): external-id claims ask it. */
export async function reportExists(ws: number, reportId: number): Promise<boolean> {
  return (await readHead(ws, reportId, true)) !== undefined;
}

/** Whether the report of that id was deleted (archived): external-id claims ask it. */
export async function reportDeleted(ws: number, reportId: number): Promise<boolean> {
  return (await getReport(ws, reportId, { includeDeleted: true, consistent: true }))?.deleted === true;
}

/** The report a column belongs to, by the column's pointer; undefined when there is no such column. */
export async function columnOwner(ws: number, columnId: number): Promise<number | undefined> {
  const pointer = await getItem(columnPointerKey(ws, columnId), false);
  return pointer ? Number(pointer.reportId) : undefined;
}

// ------------------------------------------------------------------------------------------ writes

/** A report about to be written, without its id and times. */
export type NewReport = Omit<ReportRecord, 'id' | 'createdAt' | 'updatedAt' | 'deleted' | 'run'>;

/** A column about to be written, without its ids. */
export type NewColumn = Omit<ReportColumn, 'id' | 'reportId'>;

/** A fresh report id, for callers that claim something under it before the report is written. */
export const newReportId = () => nextId('report' satisfies KindIdKind<'report'>);

/**
 * Writes a new report with its columns (given in order; numbered 1..n): columns first, head last.
 * `reportId` from newReportId when the caller needs it earlier (external ids), else a fresh one.
 */
export async function insertReport(
  input: NewReport,
  columns: readonly NewColumn[],
  reportId?: number,
): Promise<{ report: ReportRecord; columns: ReportColumn[] }> {
  const id = reportId ?? (await newReportId());
  const now = new Date().toISOString();
  const report: ReportRecord = { ...input, id, createdAt: now, updatedAt: now, deleted: false };
  const stored: ReportColumn[] = [];
  for (const [i, column] of columns.entries()) {
    stored.push({ ...column, id: await nextId('report_column'), reportId: id, position: i + 1 });
  }
  await Promise.all(stored.map((column) => putColumn(report.workspaceId, column)));
  if (!(await putNewItem(headItem(report) as Item & { PK: string; SK: string }))) {
    throw new Error(`Report ${id} exists`);
  }
  return { report, columns: stored };
}

/** Pointer first, then the column (a pointer without its column is a 404, never a stray column). */
async function putColumn(ws: number, column: ReportColumn): Promise<void> {
  await dynamo.send(
    new PutCommand({
      TableName: table(),
      Item: { ...columnPointerKey(ws, column.id), reportId: column.reportId },
    }),
  );
  await dynamo.send(new PutCommand({ TableName: table(), Item: columnItem(ws, column) }));
}

/**
 * A copy of `source` for a named run: a new report (not a blueprint, `parentReportId` = source's id)
 * with the source's dataset version, score configuration and columns (new ids), and no run yet.
 */
export async function copyReport(
  source: ReportRecord,
  name: string,
  caller: { userId: number; userEmail?: string },
): Promise<ReportRecord> {
  const columns = await listColumns(source.workspaceId, source.id, { consistent: true });
  const { report } = await insertReport(
    {
      workspaceId: source.workspaceId,
      name,
      comment: null,
      tags: [],
      folderId: source.folderId,
      datasetGroupId: source.datasetGroupId,
      datasetId: source.datasetId,
      datasetVersionNumber: source.datasetVersionNumber,
      isBlueprint: false,
      parentReportId: source.id,
      scoreConfiguration: source.scoreConfiguration,
      userId: caller.userId,
      userEmail: caller.userEmail,
    },
    columns.map(({ id: _id, reportId: _report, ...column }) => column),
  );
  return report;
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

/**
 * A live report for a column edit, read consistently, with the `columnsRevision` its columns are at
 * (pass both to withColumnsLocked after reading the columns); a 404 when there is none.
 */
export async function reportForEdit(
  ws: number,
  reportId: number,
): Promise<{ report: ReportRecord; revision: number }> {
  const item = await readHead(ws, reportId, true);
  const report = item && reportFromItem(item);
  if (!report || report.deleted) throw reportNotFound(reportId);
  return { report, revision: Number(item.columnsRevision ?? 0) };
}

/**
 * How long a column edit holds its lease (`columnsEditUntil`) at most: longer than any edit's writes take
 * (API Gateway ends a request after 29 s). A crashed edit blocks the next ones for that long at most.
 */
export const COLUMN_EDIT_LEASE_MS = 30_000;

/**
 * Rewrites a report's columns under its column lease: bumps `columnsRevision` from `revision` (the one
 * read before the columns were) and takes `columnsEditUntil`, on a live report whose latest run is not
 * RUNNING and whose columns no other edit is writing; runs `write`; then gives the lease up and bumps the
 * revision once more (whoever read the columns while they were being written plans again). The lease is
 * what makes the revision mean something: without it, an edit that read the bumped revision before the
 * edit that bumped it had written its columns would plan on stale columns (two columns of one name).
 * A run starts only on the revision its snapshot read and with no lease held (beginRun). A 409 when a
 * run is in progress or another edit came first (retryColumnEdit plans again), a 404 when the report
 * is gone.
 */
export async function withColumnsLocked<T>(
  ws: number,
  report: ReportRecord,
  revision: number,
  write: () => Promise<T>,
): Promise<T> {
  if (report.run?.status === RUNNING) throw reportRunning(report.id);
  const now = Date.now();
  const written = await updateItem(reportKey(ws, report.id), {
    set: {
      columnsRevision: revision + 1,
      columnsEditUntil: now + COLUMN_EDIT_LEASE_MS,
      updatedAt: new Date(now).toISOString(),
    },
    condition:
      'attribute_exists(PK) AND #deleted = :live AND (attribute_not_exists(#columnsRevision) OR #columnsRevision = :seen) AND (attribute_not_exists(#columnsEditUntil) OR #columnsEditUntil < :now) AND (attribute_not_exists(#run) OR #run.#status <> :running)',
    values: { ':live': false, ':seen': revision, ':now': now, ':running': RUNNING },
  });
  if (!written) {
    const current = await getReport(ws, report.id, { consistent: true });
    if (!current) throw reportNotFound(report.id);
    if (current.run?.status === RUNNING) throw reportRunning(report.id);
    throw conflict(`Report ${report.id} was changed by another request; try again`, CONCURRENT_CHANGE);
  }
  try {
    return await write();
  } finally {
    // Only this edit's own lease (a later revision is another edit's, after this lease lapsed). The
    // revision moves again: an edit or run that read revision + 1 may have read the columns before this
    // write, and must not take the lock on them once the lease is gone.
    await updateItem(reportKey(ws, report.id), {
      set: { columnsRevision: revision + 2 },
      remove: ['columnsEditUntil'],
      condition: '#columnsRevision = :mine',
      values: { ':mine': revision + 1 },
    });
  }
}

const CONCURRENT_CHANGE = 'concurrent_change';

/** How many times a column edit that lost the lock to another edit is planned again before its 409. */
const COLUMN_EDIT_ATTEMPTS = 20;

/**
 * Runs a column edit (read, check, then write under withColumnsLocked) again while it loses the lock to another edit
 * of the same report: nothing is written before the lock, so the edit is planned anew on the columns as
 * the other edit left them, and checked against them (two columns added with one name at once: one
 * 201, one 400). A 409 `concurrent_change` only after COLUMN_EDIT_ATTEMPTS.
 */
export async function retryColumnEdit<T>(edit: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await edit();
    } catch (error) {
      const lost = error instanceof AppError && error.code === CONCURRENT_CHANGE;
      if (!lost || attempt >= COLUMN_EDIT_ATTEMPTS) throw error;
      // The other edit may still be writing its columns: give it a moment (jittered) before planning again.
      await setTimeout(Math.min(attempt, 8) * (10 + Math.random() * 20));
    }
  }
}

/**
 * Writes the report's columns in `desired` order (under withColumnsLocked): positions renumbered 1..n,
 * existing columns whose position changed updated (highest first), new ones (`isNew`) put, all in
 * the order that keeps a crash harmless.
 */
export async function writeColumnOrder(
  ws: number,
  current: readonly ReportColumn[],
  desired: readonly ReportColumn[],
  newIds: ReadonlySet<number> = new Set(),
): Promise<ReportColumn[]> {
  const before = new Map(current.map((column) => [column.id, column]));
  const numbered = desired.map((column, i) => ({ ...column, position: i + 1 }));
  const moved = numbered
    .filter((column) => !newIds.has(column.id) && before.get(column.id)?.position !== column.position)
    .sort((a, b) => b.position - a.position);
  for (const column of moved) {
    await updateItem(columnKey(ws, column.reportId, column.id), {
      set: { position: column.position },
      condition: 'attribute_exists(PK)',
    });
  }
  for (const column of numbered.filter((c) => newIds.has(c.id))) await putColumn(ws, column);
  return numbered;
}

/** Replaces a column's own attributes (not its position: writeColumnOrder). */
export async function updateColumn(ws: number, column: ReportColumn): Promise<void> {
  await updateItem(columnKey(ws, column.reportId, column.id), {
    set: {
      name: column.name,
      columnType: column.columnType,
      configuration: storedConfiguration(column.configuration),
      isPartOfScore: column.isPartOfScore,
    },
    condition: 'attribute_exists(PK)',
  });
}

/** Deletes a column, then its pointer. */
export async function deleteColumn(ws: number, column: ReportColumn): Promise<void> {
  await deleteItem(columnKey(ws, column.reportId, column.id));
  await deleteItem(columnPointerKey(ws, column.id));
}

export const newColumnId = () => nextId('report_column');
