import { httpRoute } from '#shared/platform/http.ts';
import { idParam, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { getDeliveryDetail } from '#shared/webhooks/deliveries.ts';
import { deliveryDetailSchema } from '#shared/webhooks/views.ts';

/**
 * GET /api/public/v2/webhooks/{webhook_id}/deliveries/{delivery_id}: one delivery with the body it
 * sends and its newest attempts (time, latency, status, answer excerpt, signature headers sent).
 */
export const handler = httpRoute({
  path: z.object({
    webhook_id: idParam,
    delivery_id: wellFormedString().check(z.minLength(1), z.maxLength(100)),
  }),
  permission: ['webhooks', 'read'],
  responses: { 200: deliveryDetailSchema },
  handle: ({ path, auth }) => getDeliveryDetail(auth.workspaceId, path.webhook_id, path.delivery_id),
});
