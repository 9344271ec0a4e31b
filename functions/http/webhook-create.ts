import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { createWebhookSchema } from '#shared/webhooks/validation.ts';
import { webhookCreatedSchema } from '#shared/webhooks/views.ts';
import { createWebhook } from '#shared/webhooks/webhooks.ts';

/** POST /api/public/v2/webhooks: registers an endpoint; the answer holds its secret, shown this once. */
export const handler = httpRoute({
  body: createWebhookSchema,
  permission: ['webhooks', 'edit'],
  responses: { 201: webhookCreatedSchema },
  handle: async ({ body, auth }) => new HttpResponse(201, await createWebhook(auth.workspaceId, body)),
});
