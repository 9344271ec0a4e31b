import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { reportView } from '#shared/reports/read.ts';
import { reportViewSchema } from '#shared/reports/schemas.ts';

/** GET /reports/{report_id}: the report, its status and cell counts, and its columns. */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  permission: ['reports', 'read'],
  responses: { 200: reportViewSchema },
  handle: ({ path, auth }) => reportView(auth.workspaceId, path.report_id),
});
