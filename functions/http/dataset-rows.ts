import { datasetRowsSchema } from '#shared/datasets/response-schemas.ts';
import { datasetRows } from '#shared/datasets/rows.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam, paginationQuery } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** GET /api/public/v2/datasets/{dataset_id}/rows: a page of rows, optionally only those matching `q`. */
export const handler = httpRoute({
  path: z.object({ dataset_id: idParam }),
  query: z.object({ ...paginationQuery(100, 10), q: z.optional(z.string().check(z.maxLength(1024))) }),
  permission: ['datasets', 'read'],
  responses: { 200: datasetRowsSchema },
  handle: ({ path, query, auth }) => datasetRows(auth.workspaceId, path.dataset_id, query),
});
