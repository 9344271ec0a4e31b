import {
  claimExternalIds,
  type ExternalId,
  listExternalIds,
  uniqueExternalIds,
} from '#shared/external-ids/external-ids.ts';
import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { badRequest } from '#shared/platform/errors.ts';
import { type ColumnDefinition, placeColumn, supportedColumnType, validateColumns } from './columns.ts';
import { publishedVersion } from './dataset-version.ts';
import type { ReportRecord, ScoreConfiguration } from './records.ts';
import type { CreateReportBody } from './schemas.ts';
import {
  insertReport,
  listColumns,
  type NewColumn,
  newReportId,
  reportExists,
  requireReport,
  updateReportHead,
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
