import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { removeWebhook } from '#shared/webhooks/webhooks.ts';

/** DELETE /api/public/v2/webhooks/{webhook_id}: deliveries still queued for it are skipped. */
export const handler = httpRoute({
  path: z.object({ webhook_id: idParam }),
  permission: ['webhooks', 'edit'],
  responses: { 200: successSchema },
  handle: ({ path, auth }) => removeWebhook(auth.workspaceId, path.webhook_id),
});
