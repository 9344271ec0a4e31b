import { httpRoute } from '#shared/platform/http.ts';
import { trackResponseSchema, trackScoreBodySchema } from '#shared/request-logs/annotation-schemas.ts';
import { trackScore } from '#shared/request-logs/annotations.ts';

/** POST /library-track-score: /rest/track-score with the key in the body (the SDK's `track.score`). */
export const handler = httpRoute({
  auth: 'body',
  body: trackScoreBodySchema,
  permission: ['request_logs', 'edit'],
  responses: { 200: trackResponseSchema },
  handle: async ({ body, auth }) => {
    await trackScore(auth.workspaceId, body.request_id, body.score, body.name);
    return { success: true, message: 'Score tracked successfully' };
  },
});
