import * as z from 'zod';
import { createDatasetGroup } from '#shared/datasets/groups.ts';
import { toDatasetView } from '#shared/datasets/list.ts';
import { datasetGroupCreatedSchema } from '#shared/datasets/response-schemas.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { badRequest } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';

/**
 * POST /api/public/v2/dataset-groups: a group with a unique name, created with its first (empty) draft
 * and the external ids given (all or none: 409 when one belongs to another group).
 */
export const handler = httpRoute({
  body: z.object({
    name: wellFormedString()
      .min(1)
      .max(255)
      .refine((name) => name.trim() !== '', 'must not be blank'),
    workspace_id: z.int().nullish(),
    folder_id: z.int().min(1).nullish(),
    external_ids: z.array(externalIdSchema).nullish(),
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
