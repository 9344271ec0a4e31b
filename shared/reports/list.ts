import { inFolder } from '#shared/entities/folder-filter.ts';
import { findExternalIdOwner } from '#shared/external-ids/external-ids.ts';
import { sameEmail } from '#shared/platform/auth-context.ts';
import { checkWorkspaceParam } from '#shared/platform/errors.ts';
import { paginate } from '#shared/platform/pagination.ts';
import { headComparator, inTimeBounds } from '#shared/versions/list.ts';
import { reportExternalIdsOf } from './external-ids.ts';
import { listReportHeads } from './head.ts';
import { withinListBudget } from './list-budget.ts';
import type { ReportRecord } from './records.ts';
import type { ListEvaluationsQuery } from './schemas.ts';
import { reportWithStatus } from './views.ts';

/**
 * GET /api/public/v2/evaluations: the workspace's top-level reports (not the copies named runs make),
 * filtered, sorted and paged. Every report head of the workspace is read with one GSI1 Query (paged
 * through, copies and deleted ones included), filtered and sorted in memory; then only the reports of
 * the requested page have their external ids read (those that have any). `include_runs` nests each
 * report's run copies, newest first. A page stays within one Lambda answer (list-budget.ts).
 */
const byStatus = (status: ListEvaluationsQuery['status']) => (report: ReportRecord) =>
  status === 'all' || (status === 'deleted') === report.deleted;

const listed = (report: ReportRecord) => ({
  id: report.id,
  name: report.name,
  created_at: Date.parse(report.createdAt),
  updated_at: Date.parse(report.updatedAt),
});

async function item(report: ReportRecord) {
  return reportWithStatus(report, await reportExternalIdsOf(report));
}

export async function listEvaluations(workspaceId: number, query: ListEvaluationsQuery) {
  checkWorkspaceParam(query.workspace_id, workspaceId);
  const byExternalId = query.external_source !== undefined && query.external_id !== undefined;
  const [heads, owner] = await Promise.all([
    listReportHeads(workspaceId),
    byExternalId
      ? findExternalIdOwner(workspaceId, 'report', {
          source: query.external_source as string,
          external_id: query.external_id as string,
        })
      : undefined,
  ]);
  const statusOk = byStatus(query.status);
  const name = query.name?.toLowerCase();
  const matching = heads.filter(
    (report) =>
      report.parentReportId === null &&
      statusOk(report) &&
      (!byExternalId || report.id === owner) &&
      inFolder(report.folderId, query.folder_id) &&
      (name === undefined || report.name.toLowerCase().includes(name)) &&
      (query.created_by_email === undefined ||
        (report.userEmail !== undefined && sameEmail(report.userEmail, query.created_by_email))) &&
      inTimeBounds(listed(report), query),
  );
  const compare = headComparator(query.sort_by ?? 'created_at', query.sort_order ?? 'desc');
  matching.sort((a, b) => compare(listed(a), listed(b)));
  const page = paginate(matching, query.page, query.per_page);

  const runsOf = new Map<number, ReportRecord[]>();
  if (query.include_runs) {
    const onPage = new Set(page.items.map((report) => report.id));
    for (const run of heads) {
      if (
        run.parentReportId === null ||
        !onPage.has(run.parentReportId) ||
        (run.deleted && query.status === 'active')
      )
        continue;
      runsOf.set(run.parentReportId, [...(runsOf.get(run.parentReportId) ?? []), run]);
    }
  }
  const newestFirst = headComparator('created_at', 'desc');
  const evaluations = await Promise.all(
    page.items.map(async (report) => {
      const view = await item(report);
      if (!query.include_runs) return view;
      const runs = (runsOf.get(report.id) ?? []).sort((a, b) => newestFirst(listed(a), listed(b)));
      return { ...view, runs: await Promise.all(runs.map(item)) };
    }),
  );
  return {
    success: true as const,
    message: 'Evaluations retrieved successfully',
    evaluations: withinListBudget(evaluations),
    page: page.page,
    per_page: page.per_page,
    total: page.total,
    pages: page.pages,
  };
}
