import { getDataset } from '#shared/datasets/repository.ts';
import { claimExternalIds, uniqueExternalIds } from '#shared/external-ids/external-ids.ts';
import { requireFolder } from '#shared/folders/require.ts';
import { badRequest, notFound } from '#shared/platform/errors.ts';
import { reportForEdit, retryColumnEdit, withColumnsLocked } from './column-lock.ts';
import { columnReferences, placeColumn, supportedColumnType, validateColumns } from './columns.ts';
import { generatedName, publishedVersion } from './dataset-version.ts';
import { REPORT_MAPPINGS } from './external-ids.ts';
import { reportRunning } from './head.ts';
import type { ReportColumn, ReportRecord } from './records.ts';
import type { ColumnDefinition, CreateColumnBody, CreateReportBody, PatchColumnBody } from './schemas.ts';
import { scoreConfigurationOf } from './score-configuration.ts';
import {
  columnOwner,
  deleteColumn,
  insertReport,
  listColumns,
  type NewColumn,
  newColumnId,
  newReportId,
  updateColumn,
  writeColumnOrder,
} from './store.ts';
import { columnView } from './views.ts';

/** Creating and reading report definitions (the routes are thin wrappers around these). */

export interface Caller {
  workspaceId: number;
  userId: number;
  userEmail: string | null;
}

/** Column definitions in their report order (each placed at its `position`, else appended). */
export function orderedDefinitions(definitions: readonly ColumnDefinition[]): NewColumn[] {
  let ordered: NewColumn[] = [];
  for (const definition of definitions) {
    const column: NewColumn = {
      name: definition.name,
      columnType: supportedColumnType(definition.column_type),
      configuration: definition.configuration,
      position: 0,
      isPartOfScore: definition.is_part_of_score ?? false,
    };
    ordered = placeColumn(ordered, column, definition.position);
  }
  return ordered;
}

/**
 * POST /reports: a blueprint over a published version of the group (the latest unless a version
 * number is given), its folder (one of the workspace's, else 404) and its columns checked as a whole
 * before anything is written, its external ids claimed before the report is written (a 409 writes
 * nothing).
 */
export async function createReport(caller: Caller, body: CreateReportBody) {
  const [dataset] = await Promise.all([
    publishedVersion(caller.workspaceId, body.dataset_group_id, body.dataset_version_number),
    // The folder it is filed under must be one of the workspace's (404).
    requireFolder(caller.workspaceId, body.folder_id),
  ]);
  const columns = orderedDefinitions(body.columns ?? []);
  await validateColumns(dataset.columns, columns);
  const scoreConfiguration = scoreConfigurationOf(body.score_configuration);
  const externalIds = uniqueExternalIds(body.external_ids ?? []);
  const reportId = await newReportId();
  const claimed = externalIds.length
    ? await claimExternalIds(caller.workspaceId, 'report', reportId, externalIds, REPORT_MAPPINGS)
    : undefined;
  const now = new Date();
  try {
    const { columns: stored } = await insertReport(
      {
        workspaceId: caller.workspaceId,
        name: body.name ?? generatedName(dataset.groupName, now),
        comment: null,
        tags: [],
        folderId: body.folder_id ?? null,
        datasetGroupId: dataset.groupId,
        datasetId: dataset.id,
        datasetVersionNumber: dataset.versionNumber,
        isBlueprint: true,
        parentReportId: null,
        scoreConfiguration,
        userId: caller.userId,
        userEmail: caller.userEmail ?? undefined,
        hasExternalIds: externalIds.length > 0,
      },
      columns,
      reportId,
    );
    return {
      success: true as const,
      report_id: reportId,
      report_columns: stored.map(columnView),
      external_ids: externalIds,
    };
  } catch (error) {
    // No report was made: its mappings must not outlive it.
    await claimed?.release();
    throw error;
  }
}

// ------------------------------------------------------------------------------------------- columns

export const columnNotFound = (columnId: number) => notFound(`Report column ${columnId} not found`);

/** The dataset columns a report's evaluation columns may read (its version's). */
async function datasetColumnsOf(report: ReportRecord): Promise<string[]> {
  return (await getDataset(report.workspaceId, report.datasetId))?.columns ?? [];
}

/** The report (live, not running) with its columns, for an edit. */
async function editable(workspaceId: number, reportId: number) {
  const { report, revision } = await reportForEdit(workspaceId, reportId);
  if (report.run?.status === 'RUNNING') throw reportRunning(reportId);
  const [columns, datasetColumns] = await Promise.all([
    listColumns(workspaceId, reportId, { consistent: true }),
    datasetColumnsOf(report),
  ]);
  return { report, revision, columns, datasetColumns };
}

/** The column of that id and its report; a 404 unless it belongs to `reportId` (when given) in the workspace. */
async function editableColumn(workspaceId: number, columnId: number, reportId?: number) {
  const owner = await columnOwner(workspaceId, columnId);
  if (owner === undefined || (reportId !== undefined && owner !== reportId)) throw columnNotFound(columnId);
  const state = await editable(workspaceId, owner);
  const column = state.columns.find((c) => c.id === columnId);
  if (!column) throw columnNotFound(columnId);
  return { ...state, column };
}

/** POST /report-columns: a column placed at `position` (else last), later ones shifted. */
export const addColumn = (workspaceId: number, body: CreateColumnBody) =>
  retryColumnEdit(() => addColumnOnce(workspaceId, body));

async function addColumnOnce(workspaceId: number, body: CreateColumnBody) {
  const { report, revision, columns, datasetColumns } = await editable(workspaceId, body.report_id);
  const column: ReportColumn = {
    id: 0,
    reportId: report.id,
    name: body.name,
    columnType: supportedColumnType(body.column_type),
    configuration: body.configuration,
    position: 0,
    isPartOfScore: body.is_part_of_score ?? false,
  };
  const desired = placeColumn(columns, column, body.position);
  await validateColumns(datasetColumns, desired);
  column.id = await newColumnId();
  const written = await withColumnsLocked(workspaceId, report, revision, () =>
    writeColumnOrder(workspaceId, columns, desired, new Set([column.id])),
  );
  const stored = written.find((c) => c.id === column.id) as ReportColumn;
  return { success: true as const, report_column: columnView(stored) };
}

/**
 * PATCH /report-columns/{id}: the column's type (required), and optionally its name, configuration,
 * position and is_part_of_score. The whole resulting column list is checked again (a rename or a move
 * must not leave another column reading a name that is gone or now after it).
 */
export const patchColumn = (workspaceId: number, columnId: number, body: PatchColumnBody) =>
  retryColumnEdit(() => patchColumnOnce(workspaceId, columnId, body));

async function patchColumnOnce(workspaceId: number, columnId: number, body: PatchColumnBody) {
  const { report, revision, columns, datasetColumns, column } = await editableColumn(
    workspaceId,
    columnId,
    body.report_id,
  );
  const changed: ReportColumn = {
    ...column,
    columnType: supportedColumnType(body.column_type),
    name: body.name ?? column.name,
    configuration: body.configuration ?? column.configuration,
    isPartOfScore: body.is_part_of_score ?? column.isPartOfScore,
  };
  const others = columns.filter((c) => c.id !== columnId);
  const desired =
    body.position == null
      ? columns.map((c) => (c.id === columnId ? changed : c))
      : placeColumn(others, changed, body.position);
  await validateColumns(datasetColumns, desired);
  const written = await withColumnsLocked(workspaceId, report, revision, async () => {
    await updateColumn(workspaceId, changed);
    return writeColumnOrder(workspaceId, columns, desired);
  });
  const stored = written.find((c) => c.id === columnId) as ReportColumn;
  return { success: true as const, report_column: columnView(stored) };
}

/** DELETE /report-columns/{id}: refused (400) while a later column reads it. */
export const removeColumn = (workspaceId: number, columnId: number): Promise<void> =>
  retryColumnEdit(() => removeColumnOnce(workspaceId, columnId));

async function removeColumnOnce(workspaceId: number, columnId: number): Promise<void> {
  const { report, revision, columns, column } = await editableColumn(workspaceId, columnId);
  const reader = columns.find(
    (c) => c.position > column.position && columnReferences(c.configuration).includes(column.name),
  );
  if (reader) {
    throw badRequest(
      `Column "${column.name}" is read by column "${reader.name}"; change or delete that column first`,
      'column_in_use',
    );
  }
  const rest = columns.filter((c) => c.id !== columnId);
  await withColumnsLocked(workspaceId, report, revision, async () => {
    await deleteColumn(workspaceId, column);
    await writeColumnOrder(workspaceId, rest, rest);
  });
}
