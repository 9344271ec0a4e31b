import { httpRoute } from '#shared/platform/http.ts';
import { idParam, paginationQuery } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { evaluationRowsSchema } from '#shared/reports/result-schemas.ts';
import { evaluationRows } from '#shared/reports/results.ts';

/** GET /api/public/v2/evaluations/{evaluation_id}/rows: a page of rows, dataset values then cells. */
export const handler = httpRoute({
  path: z.object({ evaluation_id: idParam }),
  query: z.object({ ...paginationQuery(100, 10), workspace_id: z.optional(idParam) }),
  permission: ['reports', 'read'],
  responses: { 200: evaluationRowsSchema },
  handle: ({ path, query, auth }) => evaluationRows(auth.workspaceId, path.evaluation_id, query),
});
