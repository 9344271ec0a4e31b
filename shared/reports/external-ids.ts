import type { KindExternalId } from '#shared/entities/kinds.ts';
import { type ExternalId, listExternalIds } from '#shared/external-ids/external-ids.ts';
import { externalIdOperations } from '#shared/external-ids/operations.ts';
import { reportDeleted, reportExists, requireReport, updateReportHead } from './head.ts';
import type { ReportRecord } from './records.ts';

/**
 * The external ids of reports. A create claims them before the report exists, so one that crashed in
 * between leaves mappings of a report never written: the next claim of such a mapping takes it over
 * (once CLAIM_GRACE_MS have passed). A deleted report keeps its mappings (the list finds it by them)
 * until another report claims one: as it is a 404 everywhere, nothing could free them otherwise.
 */
export const REPORT_MAPPINGS = {
  entity: 'report' satisfies KindExternalId<'report'>,
  ownerExists: reportExists,
  ownerDeleted: reportDeleted,
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
