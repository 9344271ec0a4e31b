import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { noBodySchema } from '#shared/webhooks/validation.ts';
import { webhookCreatedSchema } from '#shared/webhooks/views.ts';
import { rotateSecret } from '#shared/webhooks/webhooks.ts';

/**
 * POST /api/public/v2/webhooks/{webhook_id}/rotate-secret: a new secret, shown this once; the one it
 * replaces keeps signing beside it for 24 hours (`previous_secret_expires_at`).
 */
export const handler = httpRoute({
  path: z.object({ webhook_id: idParam }),
  body: noBodySchema,
  optionalBody: true,
  permission: ['webhooks', 'edit'],
  responses: { 200: webhookCreatedSchema },
  handle: ({ path, auth }) => rotateSecret(auth.workspaceId, path.webhook_id),
});
