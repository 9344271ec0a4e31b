import { draftSavedSchema } from '#shared/datasets/response-schemas.ts';
import { saveDraftVersion } from '#shared/datasets/versions.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';

/**
 * POST /api/public/v2/dataset-versions/save-draft: the group's draft becomes its next version, as it is.
 * 202 as the reference answers, though the version is already numbered when the answer leaves.
 */
export const handler = httpRoute({
  body: z.object({ dataset_group_id: z.int().check(z.gte(1)) }),
  permission: ['datasets', 'edit'],
  responses: { 202: draftSavedSchema },
  errors: [404, 409],
  status: 202,
  handle: async ({ body, auth }) => {
    const { datasetId, versionNumber } = await saveDraftVersion(auth, body.dataset_group_id);
    return {
      success: true,
      message: `Draft saved as version ${versionNumber}`,
      draft_dataset_id: datasetId,
      version_number: versionNumber,
    };
  },
});
