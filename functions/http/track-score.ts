import { httpRoute } from '#shared/platform/http.ts';
import { trackResponseSchema, trackScoreBodySchema } from '#shared/request-logs/annotation-schemas.ts';
import { trackScore } from '#shared/request-logs/annotations.ts';

/** POST /rest/track-score: sets a named score (0-100) on a logged request. */
export const handler = httpRoute({
  body: trackScoreBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: trackResponseSchema },
  errors: [404, 409],
  handle: async ({ body, auth }) => {
    await trackScore(auth.workspaceId, body.request_id, body.score, body.name);
    return { success: true, message: 'Score tracked successfully' };
  },
});
