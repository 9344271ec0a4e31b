import { groupExternalIds } from '#shared/datasets/groups.ts';
import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * DELETE /api/public/v2/dataset-groups/{dataset_group_id}/external-ids/{source}/{external_id}: detaches
 * a mapping.
 */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, { dataset_group_id: idParam }),
  permission: ['datasets', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => groupExternalIds.detach(auth.workspaceId, path.dataset_group_id, path),
});
