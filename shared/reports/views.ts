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
    score_matrix: null,
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
 * A column's score in the stored score's details, when the score has one for it: read from
 * `details.columns` (an array of entries naming the column by `column_id`/`id` or `name`, or an object
 * by name) or `details[<name>]`, each either a number or an object with a numeric `score`.
 */
export function columnScore(score: ReportScore | null | undefined, column: ReportColumn): number | null {
  const details = score?.details;
  if (!details || typeof details !== 'object') return null;
  const scoreOf = (entry: unknown) =>
    entry !== null && typeof entry === 'object'
      ? finite((entry as { score?: unknown }).score)
      : finite(entry);
  const columns = (details as { columns?: unknown }).columns;
  if (Array.isArray(columns)) {
    const entry = columns.find((item) => {
      if (item === null || typeof item !== 'object') return false;
      const { column_id, id, name, column_name } = item as {
        column_id?: unknown;
        id?: unknown;
        name?: unknown;
        column_name?: unknown;
      };
      return (
        column_id === column.id || id === column.id || name === column.name || column_name === column.name
      );
    });
    return entry === undefined ? null : scoreOf(entry);
  }
  if (columns !== null && typeof columns === 'object' && Object.hasOwn(columns, column.name)) {
    return scoreOf((columns as Record<string, unknown>)[column.name]);
  }
  // A single-column score's details are that column's (`{column_name, score, ...}`).
  if ((details as { column_name?: unknown }).column_name === column.name) return scoreOf(details);
  return Object.hasOwn(details, column.name) ? scoreOf(details[column.name]) : null;
}
