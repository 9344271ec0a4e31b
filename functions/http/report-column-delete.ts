import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { removeColumn } from '#shared/reports/definitions.ts';

/** DELETE /report-columns/{report_column_id}: removes a column no later column reads (204). */
export const handler = httpRoute({
  path: z.object({ report_column_id: idParam }),
  permission: ['reports', 'edit'],
  responses: { 204: z.undefined() },
  errors: [409],
  handle: async ({ path, auth }) => {
    await removeColumn(auth.workspaceId, path.report_column_id);
    return new HttpResponse(204, undefined);
  },
});
