import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { updateWebhookSchema } from '#shared/webhooks/validation.ts';
import { webhookSchema } from '#shared/webhooks/views.ts';
import { changeWebhook } from '#shared/webhooks/webhooks.ts';

/**
 * PATCH /api/public/v2/webhooks/{webhook_id}: changes the fields given; `headers` replaces every custom
 * header (send them all, with their real values; `{}` removes them).
 */
export const handler = httpRoute({
  path: z.object({ webhook_id: idParam }),
  body: updateWebhookSchema,
  permission: ['webhooks', 'edit'],
  responses: { 200: webhookSchema },
  handle: ({ path, body, auth }) => changeWebhook(auth.workspaceId, path.webhook_id, body),
});
