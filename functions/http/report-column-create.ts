import { httpRoute } from '#shared/platform/http.ts';
import { addColumn } from '#shared/reports/definitions.ts';
import { createColumnBodySchema, reportColumnResponseSchema } from '#shared/reports/schemas.ts';

/** POST /report-columns: adds a column to a report that is not running. */
export const handler = httpRoute({
  body: createColumnBodySchema,
  permission: ['reports', 'edit'],
  responses: { 201: reportColumnResponseSchema },
  errors: [404, 409],
  status: 201,
  handle: ({ body, auth }) => addColumn(auth.workspaceId, body),
});
