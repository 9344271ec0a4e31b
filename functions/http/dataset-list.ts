import { listDatasets, listDatasetsQuerySchema } from '#shared/datasets/list.ts';
import { datasetListSchema } from '#shared/datasets/response-schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/datasets: versions and drafts of the workspace, by group or name, a page at a time. */
export const handler = httpRoute({
  query: listDatasetsQuerySchema,
  permission: ['datasets', 'read'],
  responses: { 200: datasetListSchema },
  errors: [400],
  handle: ({ query, auth }) => listDatasets(auth.workspaceId, query),
});
