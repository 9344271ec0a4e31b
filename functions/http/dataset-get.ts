import { getDatasetView } from '#shared/datasets/list.ts';
import { datasetGetSchema } from '#shared/datasets/response-schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * GET /api/public/v2/datasets/{dataset_id}: one dataset as GET /datasets lists it, with its stored
 * filter params whole (a list shows at most 100 of its request_log_ids).
 */
export const handler = httpRoute({
  path: z.object({ dataset_id: idParam }),
  permission: ['datasets', 'read'],
  responses: { 200: datasetGetSchema },
  handle: ({ path, auth }) => getDatasetView(auth.workspaceId, path.dataset_id),
});
