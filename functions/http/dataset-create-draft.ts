import { draftCreatedSchema } from '#shared/datasets/response-schemas.ts';
import { createDraftVersion } from '#shared/datasets/versions.ts';
import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * POST /api/public/v2/dataset-versions/create-draft: creates a group's draft. 201 with an empty draft,
 * 202 when rows are being copied from `source_dataset_id`, 409 when the group already has a draft.
 */
export const handler = httpRoute({
  body: z.object({
    dataset_group_id: z.int().check(z.gte(1)),
    source_dataset_id: z.nullish(z.int().check(z.gte(1))),
  }),
  permission: ['datasets', 'edit'],
  responses: { 201: draftCreatedSchema, 202: draftCreatedSchema },
  errors: [404, 409],
  handle: async ({ body, auth }) => {
    const { draftId, copying } = await createDraftVersion(auth, {
      groupId: body.dataset_group_id,
      sourceDatasetId: body.source_dataset_id,
    });
    return copying
      ? new HttpResponse(202, {
          success: true,
          message: 'Draft created; rows are being copied from the source dataset',
          draft_dataset_id: draftId,
        })
      : new HttpResponse(201, {
          success: true,
          message: 'Draft dataset version created',
          draft_dataset_id: draftId,
        });
  },
});
