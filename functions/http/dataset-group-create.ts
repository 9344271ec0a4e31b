import { createDatasetGroup } from '#shared/datasets/groups.ts';
import { toDatasetView } from '#shared/datasets/list.ts';
import { datasetGroupCreatedSchema } from '#shared/datasets/response-schemas.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { badRequest } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * POST /api/public/v2/dataset-groups: a group with a unique name, created with its first (empty) draft
 * and the external ids given (all or none: 409 when one belongs to another group).
 */
export const handler = httpRoute({
  body: z.object({
    name: wellFormedString().check(
      z.minLength(1),
      z.maxLength(255),
      z.refine((name) => name.trim() !== '', 'must not be blank'),
    ),
    workspace_id: z.nullish(z.int()),
    folder_id: z.nullish(z.int().check(z.gte(1))),
    external_ids: z.nullish(z.array(externalIdSchema)),
  }),
  permission: ['datasets', 'edit'],
  responses: { 201: datasetGroupCreatedSchema },
  errors: [404, 409],
  status: 201,
  handle: async ({ body, auth }) => {
    if (body.workspace_id != null && body.workspace_id !== auth.workspaceId) {
      throw badRequest('Invalid workspace_id', 'invalid_workspace');
    }
    const { group, draft, externalIds } = await createDatasetGroup(auth.workspaceId, auth.userId, {
      name: body.name,
      folderId: body.folder_id ?? null,
      externalIds: body.external_ids ?? [],
    });
    return {
      success: true,
      message: 'Dataset group created successfully',
      dataset_group: {
        id: group.id,
        name: group.name,
        workspace_id: group.workspaceId,
        folder_id: group.folderId,
        is_deleted: false,
      },
      dataset: await toDatasetView(draft, externalIds),
      external_ids: externalIds,
    };
  },
});
