import type { ExternalId } from '#shared/external-ids/external-ids.ts';
import { type ReportColumn, type ReportRecord, type ReportScore, reportStatus } from './records.ts';

/** Records as the API answers them (PromptLayer's field names). */

export function columnView(column: ReportColumn) {
  return {
    id: column.id,
    report_id: column.reportId,
    name: column.name,
    column_type: column.columnType,
    position: column.position,
    is_part_of_score: column.isPartOfScore,
    configuration: column.configuration,
  };
}

export function reportFieldsView(report: ReportRecord, externalIds: ExternalId[]) {
  return {
    id: report.id,
    name: report.name,
    comment: report.comment,
    is_blueprint: report.isBlueprint,
    deleted: report.deleted,
    created_at: report.createdAt,
    updated_at: report.updatedAt,
    score: (report.run?.score as Record<string, unknown> | null | undefined) ?? null,
    score_configuration: report.scoreConfiguration,
    score_matrix: scoreMatrix(report.run?.score),
    score_calculation_error: report.run?.scoreError ?? null,
    parent_report_id: report.parentReportId,
    dataset_id: report.datasetId,
    dataset_group_id: report.datasetGroupId,
    dataset_version_number: report.datasetVersionNumber,
    user_id: report.userId,
    workspace_id: report.workspaceId,
    folder_id: report.folderId,
    tags: report.tags,
    external_ids: externalIds,
    prompt_registry_id: null,
    prompt_version_number: null,
  };
}

/** A report with its status and cell counts (reportStatus), as the get and the list answer it. */
export function reportWithStatus(report: ReportRecord, externalIds: ExternalId[]) {
  return { ...reportFieldsView(report, externalIds), ...reportStatus(report) };
}

const finite = (value: unknown): number | null =>
  typeof value === 'number' && Number.isFinite(value) ? value : null;

/**
 * A column's score in the stored score's details, when the score has one for it: the single column's
 * details (`{column_name, score, ...}`) or an entry of `details.columns` naming the column (by
 * `column_name`/`name`, or `column_id`/`id`), each with a numeric `score`.
 */
export function columnScore(score: ReportScore | null | undefined, column: ReportColumn): number | null {
  const details = score?.details;
  if (!details || typeof details !== 'object') return null;
  const names = (entry: unknown) => {
    if (entry === null || typeof entry !== 'object') return false;
    const { column_id, id, column_name, name } = entry as Record<string, unknown>;
    return column_name === column.name || name === column.name || column_id === column.id || id === column.id;
  };
  if (names(details)) return finite(details.score);
  const columns = (details as { columns?: unknown }).columns;
  if (!Array.isArray(columns)) return null;
  const entry = columns.find(names) as { score?: unknown } | undefined;
  return entry === undefined ? null : finite(entry.score);
}

/** A custom score's matrix (what the score code returned as `matrix`), else null. */
export function scoreMatrix(score: ReportScore | null | undefined): unknown[] | null {
  const matrix = score?.score_type === 'custom' ? (score.details as { matrix?: unknown }).matrix : undefined;
  return Array.isArray(matrix) ? matrix : null;
}
