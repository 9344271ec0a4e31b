import { fromFilterParamsBodySchema } from '#shared/datasets/filter-params.ts';
import { versionFromFilterParamsSchema } from '#shared/datasets/response-schemas.ts';
import { createVersionFromFilterParams } from '#shared/datasets/versions.ts';
import { allows } from '#shared/platform/auth-context.ts';
import { forbidden } from '#shared/platform/errors.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * POST /api/public/v2/dataset-versions/from-filter-params: answers at once with the group's draft; a job
 * fills it with the matching request logs and makes it a version.
 */
export const handler = httpRoute({
  body: fromFilterParamsBodySchema,
  permission: ['datasets', 'edit'],
  responses: { 201: versionFromFilterParamsSchema },
  errors: [404, 409],
  status: 201,
  handle: async ({ body, auth }) => {
    // The rows are copies of request logs: the key must be allowed to read them.
    if (!allows(auth.permissions, 'request_logs', 'read')) {
      throw forbidden('This API key may not read request logs');
    }
    const { datasetId, groupId, versionNumber } = await createVersionFromFilterParams(auth, body);
    return {
      success: true,
      message: 'Dataset version creation queued',
      dataset_id: datasetId,
      dataset_group_id: groupId,
      version_number: versionNumber,
    };
  },
});
