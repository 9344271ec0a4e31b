import { deleteOverride } from '#shared/costs/overrides.ts';
import { modelPathSchema } from '#shared/costs/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';

/** DELETE /api/public/v2/model-prices/{model}: logs of the model are priced by the price table again. */
export const handler = httpRoute({
  path: modelPathSchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: successSchema },
  handle: async ({ path, auth }) => {
    await deleteOverride(auth.workspaceId, path.model);
    return { success: true as const };
  },
});
