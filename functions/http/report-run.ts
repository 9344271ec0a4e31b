import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { defaultStartDeps, runReportBodySchema, startReportRun } from '#shared/reports/run/start.ts';

const runReportResponseSchema = z
  .object({ success: z.literal(true), report_id: z.int() })
  .clone()
  .register(z.globalRegistry, { id: 'RunReportResponse' });

/**
 * POST /reports/{report_id}/run: runs every row of the report (in place), or of a copy named `name`;
 * 201 with the id of the report that runs. 409 while the report's latest run is RUNNING.
 */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  body: runReportBodySchema,
  optionalBody: true,
  permission: ['reports', 'edit'],
  status: 201,
  responses: { 201: runReportResponseSchema },
  errors: [409],
  handle: async ({ path, body, auth }) => {
    const { reportId } = await startReportRun(
      auth.workspaceId,
      path.report_id,
      body,
      { userId: auth.userId, userEmail: auth.userEmail ?? undefined },
      await defaultStartDeps(),
    );
    return { success: true as const, report_id: reportId };
  },
});
