import { listDatasets, listDatasetsQuerySchema } from '#shared/datasets/list.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/datasets: versions and drafts of the workspace, by group or name, a page at a time. */
export const handler = httpRoute({
  query: listDatasetsQuerySchema,
  permission: ['datasets', 'read'],
  handle: ({ query, auth }) => listDatasets(auth.workspaceId, query),
});
