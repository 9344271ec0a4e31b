import { httpRoute } from '#shared/platform/http.ts';
import { columnTypes } from '#shared/reports/column-types.ts';
import { reportColumnTypesResponseSchema } from '#shared/reports/schemas.ts';

/** GET /reports/column-types: the column types a report can run, with each configuration's JSON Schema. */
export const handler = httpRoute({
  permission: ['reports', 'read'],
  responses: { 200: reportColumnTypesResponseSchema },
  handle: async () => ({ success: true as const, column_types: columnTypes() }),
});
