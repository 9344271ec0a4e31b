import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { reportExternalIds } from '#shared/reports/external-ids.ts';

/** DELETE /reports/{report_id}/external-ids/{source}/{external_id}: detaches a mapping. */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, { report_id: idParam }),
  permission: ['reports', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => reportExternalIds.detach(auth.workspaceId, path.report_id, path),
});
