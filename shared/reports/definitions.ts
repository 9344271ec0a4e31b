import { getDataset } from '#shared/datasets/repository.ts';
import {
  claimExternalIds,
  type ExternalId,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { AppError, badRequest, clip, notFound } from '#shared/platform/errors.ts';
import {
  type ColumnDefinition,
  columnReferences,
  placeColumn,
  supportedColumnType,
  validateColumns,
} from './columns.ts';
import { publishedVersion } from './dataset-version.ts';
import type { ReportColumn, ReportRecord, ScoreConfiguration } from './records.ts';
import type { CreateColumnBody, CreateReportBody, PatchColumnBody, RenameReportBody } from './schemas.ts';
import {
  columnOwner,
  deleteColumn,
  insertReport,
  listColumns,
  listReportHeads,
  lockColumns,
  type NewColumn,
  newColumnId,
  newReportId,
  reportExists,
  reportRunning,
  requireReport,
  updateColumn,
  updateReportHead,
  writeColumnOrder,
} from './store.ts';
import { columnScore, columnView, reportFieldsView, reportWithStatus } from './views.ts';

/** Creating and reading report definitions (the routes are thin wrappers around these). */

export interface Caller {
  workspaceId: number;
  userId: number;
  userEmail: string | null;
}

/**
 * The external ids of reports. A create claims them before the report exists, so one that crashed in
 * between leaves mappings of a report never written: the next claim of such a mapping takes it over
 * (once CLAIM_GRACE_MS have passed). A deleted report still holds its mappings.
 */
const REPORT_MAPPINGS = {
  entity: 'report',
  ownerExists: reportExists,
} as const;

export const reportExternalIds = externalIdOperations<ReportRecord>({
  ...REPORT_MAPPINGS,
  require: requireReport,
  // The head learns it has mappings before the first one exists, so a reader never misses one.
  async beforeAttach(workspaceId, report) {
    if (!report.hasExternalIds) {
      await updateReportHead(workspaceId, report.id, { hasExternalIds: true }, { touch: false });
    }
  },
});

/** The mappings of a report (none read when it never had any). */
export const reportExternalIdsOf = (report: ReportRecord): Promise<ExternalId[]> | ExternalId[] =>
  report.hasExternalIds ? listExternalIds(report.workspaceId, 'report', report.id) : [];

/** A score configuration as stored: JavaScript only (PYTHON cannot run here: a 400). */
export function scoreConfigurationOf(
  input: { code: string; code_language: 'JAVASCRIPT' | 'PYTHON' } | null | undefined,
): ScoreConfiguration | null {
  if (!input) return null;
  if (input.code_language !== 'JAVASCRIPT') {
    throw badRequest(
      `score_configuration.code_language ${input.code_language} is not supported; use JAVASCRIPT`,
      'unsupported_code_language',
    );
  }
  return { code: input.code, code_language: 'JAVASCRIPT' };
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
 * number is given), its columns checked as a whole before anything is written, its external ids
 * claimed before the report is written (a 409 writes nothing).
 */
export async function createReport(caller: Caller, body: CreateReportBody) {
  const dataset = await publishedVersion(
    caller.workspaceId,
    body.dataset_group_id,
    body.dataset_version_number,
  );
  const columns = orderedDefinitions(body.columns ?? []);
  validateColumns(dataset.columns, columns);
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
        name:
          body.name ?? `${dataset.groupName} evaluation ${now.toISOString().slice(0, 19).replace('T', ' ')}`,
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

/** GET /reports/{report_id}: the report, its status and cell counts, and its columns with their scores. */
export async function reportView(workspaceId: number, reportId: number) {
  const report = await requireReport(workspaceId, reportId);
  const [columns, externalIds] = await Promise.all([
    listColumns(workspaceId, reportId),
    reportExternalIdsOf(report),
  ]);
  const { status, stats } = reportWithStatus(report, externalIds);
  return {
    success: true as const,
    message: 'Report retrieved successfully',
    report: reportFieldsView(report, externalIds),
    status,
    stats,
    report_columns: columns.map((column) => ({
      ...columnView(column),
      score: columnScore(report.run?.score, column),
    })),
  };
}

// ------------------------------------------------------------------------------------------- columns

export const columnNotFound = (columnId: number) => notFound(`Report column ${columnId} not found`);

/** The dataset columns a report's evaluation columns may read (its version's). */
async function datasetColumnsOf(report: ReportRecord): Promise<string[]> {
  return (await getDataset(report.workspaceId, report.datasetId))?.columns ?? [];
}

/** The report (live, not running) with its columns, for an edit. */
async function editable(workspaceId: number, reportId: number) {
  const report = await requireReport(workspaceId, reportId);
  if (report.run?.status === 'RUNNING') throw reportRunning(reportId);
  const [columns, datasetColumns] = await Promise.all([
    listColumns(workspaceId, reportId, { consistent: true }),
    datasetColumnsOf(report),
  ]);
  return { report, columns, datasetColumns };
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
export async function addColumn(workspaceId: number, body: CreateColumnBody) {
  const { report, columns, datasetColumns } = await editable(workspaceId, body.report_id);
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
  validateColumns(datasetColumns, desired);
  await lockColumns(workspaceId, report);
  column.id = await newColumnId();
  const written = await writeColumnOrder(workspaceId, columns, desired, new Set([column.id]));
  const stored = written.find((c) => c.id === column.id) as ReportColumn;
  return { success: true as const, report_column: columnView(stored) };
}

/**
 * PATCH /report-columns/{id}: the column's type (required), and optionally its name, configuration,
 * position and is_part_of_score. The whole resulting column list is checked again (a rename or a move
 * must not leave another column reading a name that is gone or now after it).
 */
export async function patchColumn(workspaceId: number, columnId: number, body: PatchColumnBody) {
  const { report, columns, datasetColumns, column } = await editableColumn(
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
  validateColumns(datasetColumns, desired);
  await lockColumns(workspaceId, report);
  await updateColumn(workspaceId, changed);
  const written = await writeColumnOrder(workspaceId, columns, desired);
  const stored = written.find((c) => c.id === columnId) as ReportColumn;
  return { success: true as const, report_column: columnView(stored) };
}

/** DELETE /report-columns/{id}: refused (400) while a later column reads it. */
export async function removeColumn(workspaceId: number, columnId: number): Promise<void> {
  const { report, columns, column } = await editableColumn(workspaceId, columnId);
  const reader = columns.find(
    (c) => c.position > column.position && columnReferences(c.configuration).includes(column.name),
  );
  if (reader) {
    throw badRequest(
      `Column "${column.name}" is read by column "${reader.name}"; change or delete that column first`,
      'column_in_use',
    );
  }
  await lockColumns(workspaceId, report);
  await deleteColumn(workspaceId, column);
  const rest = columns.filter((c) => c.id !== columnId);
  await writeColumnOrder(workspaceId, rest, rest);
}

// ------------------------------------------------------------------------------- name, tags, delete

/** PATCH /reports/{report_id}/rename: name and/or tags (tags replace; [] clears). */
export async function renameReport(workspaceId: number, reportId: number, body: RenameReportBody) {
  await requireReport(workspaceId, reportId);
  const report = await updateReportHead(workspaceId, reportId, {
    name: body.name ?? undefined,
    tags: body.tags == null ? undefined : [...new Set(body.tags)],
  });
  return {
    success: true as const,
    report: {
      id: report.id,
      name: report.name,
      tags: report.tags,
      score_configuration: report.scoreConfiguration,
    },
  };
}

export const ARCHIVED = 'Report archived successfully';

/** DELETE /reports/{report_id}: a soft delete; the report is then a 404 everywhere but the list. */
export async function archiveReport(workspaceId: number, reportId: number) {
  await requireReport(workspaceId, reportId);
  await updateReportHead(workspaceId, reportId, { deleted: true });
  return { success: true as const, message: ARCHIVED };
}

/** DELETE /reports/name/{report_name}: archives every live report of exactly that name (404 when none). */
export async function archiveReportsNamed(workspaceId: number, name: string) {
  const named = (await listReportHeads(workspaceId)).filter((r) => r.name === name && !r.deleted);
  if (named.length === 0) throw notFound(`No report named ${JSON.stringify(clip(name, 64))} found`);
  const outcomes = await Promise.allSettled(
    named.map((report) => updateReportHead(workspaceId, report.id, { deleted: true })),
  );
  // One archived meanwhile by another request is archived all the same.
  const failed = outcomes.find((o) => o.status === 'rejected' && !(o.reason instanceof AppError));
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return {
    success: true as const,
    message: named.length === 1 ? ARCHIVED : `${named.length} reports archived successfully`,
  };
}
