import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { patchColumn } from '#shared/reports/definitions.ts';
import { patchColumnBodySchema, reportColumnResponseSchema } from '#shared/reports/schemas.ts';

/** PATCH /report-columns/{report_column_id}: changes a column of a report that is not running. */
export const handler = httpRoute({
  path: z.object({ report_column_id: idParam }),
  body: patchColumnBodySchema,
  permission: ['reports', 'edit'],
  responses: { 200: reportColumnResponseSchema },
  errors: [409],
  handle: ({ path, body, auth }) => patchColumn(auth.workspaceId, path.report_column_id, body),
});
