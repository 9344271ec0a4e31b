import { httpRoute } from '#shared/platform/http.ts';
import { listEvaluations } from '#shared/reports/list.ts';
import { evaluationListSchema, listEvaluationsQuerySchema } from '#shared/reports/schemas.ts';

/** GET /api/public/v2/evaluations: the workspace's evaluation pipelines, filtered, sorted and paged. */
export const handler = httpRoute({
  query: listEvaluationsQuerySchema,
  permission: ['reports', 'read'],
  responses: { 200: evaluationListSchema },
  errors: [400],
  handle: ({ query, auth }) => listEvaluations(auth.workspaceId, query),
});
