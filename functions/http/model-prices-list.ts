import { listOverrides } from '#shared/costs/overrides.ts';
import { modelPriceListSchema, toModelPriceView } from '#shared/costs/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/model-prices: the workspace's model price overrides, by model. */
export const handler = httpRoute({
  permission: ['request_logs', 'read'],
  responses: { 200: modelPriceListSchema },
  handle: async ({ auth }) => ({
    success: true as const,
    items: [...(await listOverrides(auth.workspaceId)).values()].map(toModelPriceView),
  }),
});
