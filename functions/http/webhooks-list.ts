import { httpRoute } from '#shared/platform/http.ts';
import { webhookListSchema } from '#shared/webhooks/views.ts';
import { listWorkspaceWebhooks } from '#shared/webhooks/webhooks.ts';

/** GET /api/public/v2/webhooks: the workspace's webhooks (at most 20), oldest first, without secrets. */
export const handler = httpRoute({
  permission: ['webhooks', 'read'],
  responses: { 200: webhookListSchema },
  handle: ({ auth }) => listWorkspaceWebhooks(auth.workspaceId),
});
