import { reportExternalIdsOf } from './external-ids.ts';
import { requireReport } from './head.ts';
import { listColumns } from './store.ts';
import { columnScore, columnView, reportFieldsView, reportWithStatus } from './views.ts';

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
