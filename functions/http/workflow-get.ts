import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getWorkflow } from '#shared/workflows/read.ts';
import {
  getWorkflowQuerySchema,
  workflowIdentifierSchema,
  workflowVersionViewSchema,
} from '#shared/workflows/schemas.ts';

/**
 * GET /workflows/{workflow_id_or_name}: a version with its nodes and edges. The path parameter is named
 * `workflow_name` like its siblings (the run route's): API Gateway allows one parameter name per level.
 */
export const handler = httpRoute({
  path: z.object({ workflow_name: workflowIdentifierSchema }),
  query: getWorkflowQuerySchema,
  permission: ['workflows', 'read'],
  responses: { 200: workflowVersionViewSchema },
  handle: ({ path, query, auth }) => getWorkflow(auth.workspaceId, path.workflow_name, query),
});
