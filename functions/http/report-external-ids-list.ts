import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { reportExternalIds } from '#shared/reports/external-ids.ts';

/** GET /reports/{report_id}/external-ids: the report's mappings. */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  permission: ['reports', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => reportExternalIds.list(auth.workspaceId, path.report_id),
});
