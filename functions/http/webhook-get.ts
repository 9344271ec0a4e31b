import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { webhookSchema } from '#shared/webhooks/views.ts';
import { getWebhookView } from '#shared/webhooks/webhooks.ts';

/** GET /api/public/v2/webhooks/{webhook_id}: one webhook, without its secret. */
export const handler = httpRoute({
  path: z.object({ webhook_id: idParam }),
  permission: ['webhooks', 'read'],
  responses: { 200: webhookSchema },
  handle: ({ path, auth }) => getWebhookView(auth.workspaceId, path.webhook_id),
});
