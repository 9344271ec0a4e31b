import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { listWorkflowLabels } from '#shared/workflows/read.ts';
import { workflowIdentifierSchema, workflowLabelsViewSchema } from '#shared/workflows/schemas.ts';

/** GET /workflows/{workflow_id_or_name}/labels: a workflow's release labels and where they point. */
export const handler = httpRoute({
  path: z.object({ workflow_name: workflowIdentifierSchema }),
  permission: ['workflows', 'read'],
  responses: { 200: workflowLabelsViewSchema },
  handle: ({ path, auth }) => listWorkflowLabels(auth.workspaceId, path.workflow_name),
});
