import { groupExternalIds } from '#shared/datasets/groups.ts';
import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** POST /api/public/v2/dataset-groups/{dataset_group_id}/external-ids: attaches a mapping (201). */
export const handler = httpRoute({
  path: z.object({ dataset_group_id: idParam }),
  body: externalIdSchema,
  permission: ['datasets', 'edit'],
  responses: { 201: externalIdResponses.attached },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => groupExternalIds.attach(auth.workspaceId, path.dataset_group_id, body),
});
