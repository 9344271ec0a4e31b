import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { idParam, queryBoolean } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { executionResultsSchema, getExecutionResults } from '#shared/workflows/engine/results.ts';

/**
 * GET /workflow-version-execution-results: 202 with every node while any is QUEUED or RUNNING; 200
 * once all are final, with every node (`return_all_outputs=true`) or only the main output node.
 */
export const handler = httpRoute({
  query: z.object({
    workflow_version_execution_id: idParam,
    return_all_outputs: z.optional(queryBoolean),
  }),
  permission: ['workflows', 'read'],
  responses: { 200: executionResultsSchema, 202: executionResultsSchema },
  errors: [404],
  handle: async ({ query, auth }) => {
    const { status, body } = await getExecutionResults(
      auth.workspaceId,
      query.workflow_version_execution_id,
      query.return_all_outputs ?? false,
    );
    return new HttpResponse(status, body);
  },
});
