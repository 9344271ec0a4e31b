import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { archiveReportsNamed } from '#shared/reports/head-edits.ts';
import { archivedResponseSchema, reportNameSchema } from '#shared/reports/schemas.ts';

/** DELETE /reports/name/{report_name}: archives every live report of that name. */
export const handler = httpRoute({
  path: z.object({ report_name: reportNameSchema }),
  permission: ['reports', 'edit'],
  responses: { 200: archivedResponseSchema },
  handle: ({ path, auth }) => archiveReportsNamed(auth.workspaceId, path.report_name),
});
