import { getRecompute, toRecomputeView } from '#shared/cost-recompute/recompute.ts';
import { recomputeJobAnswerSchema, recomputeJobPathSchema } from '#shared/cost-recompute/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/requests/cost-recompute/{job_id}: a recompute job's status and progress counts. */
export const handler = httpRoute({
  path: recomputeJobPathSchema,
  permission: ['request_logs', 'read'],
  responses: { 200: recomputeJobAnswerSchema },
  handle: async ({ path, auth }) => ({
    success: true as const,
    job: toRecomputeView(await getRecompute(auth.workspaceId, path.job_id)),
  }),
});
