import { PutCommand, QueryCommand, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { KindIdKind } from '#shared/entities/kinds.ts';
import { dynamo, table } from '#shared/platform/dynamo.ts';
import { nextId } from '#shared/platform/ids.ts';
import { deleteItem, getItem, updateItem } from '#shared/platform/items.ts';
import { putNewHead } from './head.ts';
import { COLUMN_SK_PREFIX, columnKey, columnPointerKey, reportPartition } from './keys.ts';
import type { ReportColumn, ReportRecord } from './records.ts';

/**
 * A report's columns, and the writing of a new report (columns first, head last: no head, no report).
 * Keys: keys.ts; access patterns: docs/data-model.md. The head is head.ts's, the column lock
 * column-lock.ts's.
 *
 * Write order, so that a crash between two single-item writes leaves nothing a reader sees as broken:
 * - a new report writes its column pointers and columns first and its head last;
 * - a column edit writes its columns under the column lock (column-lock.ts); positions are renumbered
 *   1..n on every read, so a crash in the middle of a shift leaves at worst a gap;
 * - a new column's pointer is written before the column, a deleted column's after it.
 */
type Item = Record<string, unknown>;

// ------------------------------------------------------------------------------------------- items

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
  if (!(await putNewHead(report))) {
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
