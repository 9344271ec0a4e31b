import { getOverride } from '#shared/costs/overrides.ts';
import { modelPathSchema, modelPriceAnswerSchema, toModelPriceView } from '#shared/costs/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/model-prices/{model}: the workspace's price for a model (404 when it has none). */
export const handler = httpRoute({
  path: modelPathSchema,
  permission: ['request_logs', 'read'],
  responses: { 200: modelPriceAnswerSchema },
  handle: async ({ path, auth }) => ({
    success: true as const,
    model_price: toModelPriceView(await getOverride(auth.workspaceId, path.model)),
  }),
});
