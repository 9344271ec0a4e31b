import { groupExternalIds } from '#shared/datasets/groups.ts';
import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** GET /api/public/v2/dataset-groups/{dataset_group_id}/external-ids: the group's mappings. */
export const handler = httpRoute({
  path: z.object({ dataset_group_id: idParam }),
  permission: ['datasets', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => groupExternalIds.list(auth.workspaceId, path.dataset_group_id),
});
