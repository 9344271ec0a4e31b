import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { archiveReport } from '#shared/reports/head-edits.ts';
import { archivedResponseSchema } from '#shared/reports/schemas.ts';

/** DELETE /reports/{report_id}: archives (soft-deletes) the report. */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  permission: ['reports', 'edit'],
  responses: { 200: archivedResponseSchema },
  handle: ({ path, auth }) => archiveReport(auth.workspaceId, path.report_id),
});
