import { httpRoute } from '#shared/platform/http.ts';
import { eventTypeList, eventTypeListSchema } from '#shared/webhooks/views.ts';

/** GET /api/public/v2/webhook-event-types: the event types a webhook can subscribe to (and the test one). */
export const handler = httpRoute({
  permission: ['webhooks', 'read'],
  responses: { 200: eventTypeListSchema },
  handle: async () => eventTypeList(),
});
