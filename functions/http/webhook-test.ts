import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { sendTestEvent } from '#shared/webhooks/deliveries.ts';
import { noBodySchema } from '#shared/webhooks/validation.ts';
import { deliverySchema } from '#shared/webhooks/views.ts';

/** POST /api/public/v2/webhooks/{webhook_id}/test: queues a `webhook_test` event for this webhook only. */
export const handler = httpRoute({
  path: z.object({ webhook_id: idParam }),
  body: noBodySchema,
  optionalBody: true,
  permission: ['webhooks', 'edit'],
  responses: { 202: deliverySchema },
  handle: async ({ path, auth }) =>
    new HttpResponse(202, await sendTestEvent(auth.workspaceId, path.webhook_id, auth)),
});
