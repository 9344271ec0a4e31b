import { AppError, clip, notFound } from '#shared/platform/errors.ts';
import { listReportHeads, requireReport, updateReportHead } from './head.ts';
import type { RenameReportBody } from './schemas.ts';

/** The head's own edits: name and tags, soft delete (by id or by name). */

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
