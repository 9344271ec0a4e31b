import { httpRoute } from '#shared/platform/http.ts';
import { idParam, paginationQuery } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { listDeliveries } from '#shared/webhooks/deliveries.ts';
import { DELIVERY_STATUSES } from '#shared/webhooks/validation.ts';
import { deliveryListSchema } from '#shared/webhooks/views.ts';

/** GET /api/public/v2/webhooks/{webhook_id}/deliveries: newest first, a page at a time, by status. */
export const handler = httpRoute({
  path: z.object({ webhook_id: idParam }),
  query: z.object({ ...paginationQuery(100, 20), status: z.optional(z.enum(DELIVERY_STATUSES)) }),
  permission: ['webhooks', 'read'],
  responses: { 200: deliveryListSchema },
  handle: ({ path, query, auth }) => listDeliveries(auth.workspaceId, path.webhook_id, query),
});
