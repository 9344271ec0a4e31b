import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { listWorkflowRuns, runListQuerySchema, runListSchema } from '#shared/workflows/engine/run-list.ts';
import { workflowIdentifierSchema } from '#shared/workflows/schemas.ts';

/** GET /workflows/{workflow_id_or_name}/runs: its runs, newest first, after a cursor. */
export const handler = httpRoute({
  path: z.object({ workflow_name: workflowIdentifierSchema }),
  query: runListQuerySchema,
  permission: ['workflows', 'read'],
  responses: { 200: runListSchema },
  handle: ({ path, query, auth }) => listWorkflowRuns(auth.workspaceId, path.workflow_name, query),
});
