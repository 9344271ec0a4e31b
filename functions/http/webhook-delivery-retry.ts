import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { idParam, wellFormedString } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { retryDelivery } from '#shared/webhooks/deliveries.ts';
import { noBodySchema } from '#shared/webhooks/validation.ts';
import { deliverySchema } from '#shared/webhooks/views.ts';

/**
 * POST /api/public/v2/webhooks/{webhook_id}/deliveries/{delivery_id}/retry: sends a delivery again,
 * whatever its status (one that reached the dead-letter queue included); its attempts keep counting.
 * 409 while an attempt of it is in progress.
 */
export const handler = httpRoute({
  path: z.object({
    webhook_id: idParam,
    delivery_id: wellFormedString().check(z.minLength(1), z.maxLength(100)),
  }),
  body: noBodySchema,
  optionalBody: true,
  permission: ['webhooks', 'edit'],
  responses: { 202: deliverySchema },
  errors: [409],
  handle: async ({ path, auth }) =>
    new HttpResponse(202, await retryDelivery(auth.workspaceId, path.webhook_id, path.delivery_id)),
});
