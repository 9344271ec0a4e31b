import { startRecompute, toRecomputeView } from '#shared/cost-recompute/recompute.ts';
import { recomputeBodySchema, recomputeJobAnswerSchema } from '#shared/cost-recompute/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * POST /api/public/v2/requests/cost-recompute: rewrites the cost of the matching logs with the current
 * price table and overrides, as a job (poll GET .../cost-recompute/{job_id}); one at a time per workspace.
 */
export const handler = httpRoute({
  body: recomputeBodySchema,
  permission: ['request_logs', 'edit'],
  status: 202,
  responses: { 202: recomputeJobAnswerSchema },
  errors: [409],
  handle: async ({ body, auth }) => {
    const job = await startRecompute(auth.workspaceId, {
      filter_group: body.filter_group ?? null,
      q: body.q ?? null,
      start: body.start_time,
      end: body.end_time,
    });
    return { success: true as const, job: toRecomputeView(job) };
  },
});
