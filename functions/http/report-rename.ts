import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { renameReport } from '#shared/reports/head-edits.ts';
import { renameReportBodySchema, reportSummaryResponseSchema } from '#shared/reports/schemas.ts';

/** PATCH /reports/{report_id}/rename: a new name and/or tags (replacing them; [] clears). */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  body: renameReportBodySchema,
  permission: ['reports', 'edit'],
  responses: { 200: reportSummaryResponseSchema },
  handle: ({ path, body, auth }) => renameReport(auth.workspaceId, path.report_id, body),
});
