import { authenticateApiKey } from '#shared/auth/key-cache.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { jsonObject } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import type { RawBody } from '#shared/request-logs/log-request.ts';
import { trackRequest, trackRequestBodySchema } from '#shared/request-logs/track-request.ts';

/** POST /track-request: a provider call the SDK made (run(), its OpenAI/Anthropic wrappers), logged. */
export const handler = httpRoute({
  auth: 'body',
  keyCheck: authenticateApiKey,
  body: trackRequestBodySchema,
  permission: ['request_logs', 'edit'],
  responses: {
    200: z.object({
      success: z.literal(true),
      request_id: z.int(),
      prompt_blueprint: jsonObject,
    }),
  },
  errors: [404],
  handle: ({ body, rawBody, auth }) => trackRequest(auth.workspaceId, body, rawBody as RawBody),
});
