import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { reportExternalIds } from '#shared/reports/external-ids.ts';

/** POST /reports/{report_id}/external-ids: attaches a mapping (201; idempotent, 409 another report's). */
export const handler = httpRoute({
  path: z.object({ report_id: idParam }),
  body: externalIdSchema,
  permission: ['reports', 'edit'],
  responses: { 201: externalIdResponses.attached },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => reportExternalIds.attach(auth.workspaceId, path.report_id, body),
});
