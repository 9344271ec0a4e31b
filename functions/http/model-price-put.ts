import { putOverride } from '#shared/costs/overrides.ts';
import {
  modelPathSchema,
  modelPriceAnswerSchema,
  putModelPriceBodySchema,
  toModelPriceView,
  toOverride,
} from '#shared/costs/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * PUT /api/public/v2/model-prices/{model}: sets (or replaces) the workspace's price for a model, used for
 * the logs that come without a price; a recompute applies it to logs already stored.
 */
export const handler = httpRoute({
  path: modelPathSchema,
  body: putModelPriceBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: modelPriceAnswerSchema },
  errors: [409],
  handle: async ({ path, body, auth }) => ({
    success: true as const,
    model_price: toModelPriceView(await putOverride(auth.workspaceId, toOverride(path.model, body))),
  }),
});
