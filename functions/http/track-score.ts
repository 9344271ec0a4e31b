import * as z from 'zod';
import { httpRoute } from '#shared/platform/http.ts';
import { successMessageSchema } from '#shared/platform/response-schemas.ts';
import { wellFormedString } from '#shared/platform/schemas.ts';
import { requestIdField } from '#shared/request-logs/annotation-schemas.ts';
import { DEFAULT_SCORE_NAME, trackScore } from '#shared/request-logs/annotations.ts';

/** POST /rest/track-score: sets a named score (0-100) on a logged request. */
export const handler = httpRoute({
  body: z.object({
    request_id: requestIdField,
    score: z.int().min(0).max(100),
    name: wellFormedString()
      .min(1)
      .max(255)
      .nullish()
      .transform((name) => name ?? DEFAULT_SCORE_NAME),
  }),
  permission: ['request_logs', 'edit'],
  responses: { 200: successMessageSchema },
  errors: [404, 409],
  handle: async ({ body, auth }) => {
    await trackScore(auth.workspaceId, body.request_id, body.score, body.name);
    return { success: true, message: 'Score tracked successfully' };
  },
});
