import { httpRoute } from '#shared/platform/http.ts';
import { listWorkflows } from '#shared/workflows/list.ts';
import { listWorkflowsQuerySchema, workflowListSchema } from '#shared/workflows/schemas.ts';

/** GET /workflows: the workspace's workflows, filtered, sorted and paged. */
export const handler = httpRoute({
  query: listWorkflowsQuerySchema,
  permission: ['workflows', 'read'],
  responses: { 200: workflowListSchema },
  handle: ({ query, auth }) => listWorkflows(auth.workspaceId, query),
});
