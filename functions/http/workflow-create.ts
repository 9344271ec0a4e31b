import { httpRoute } from '#shared/platform/http.ts';
import { createWorkflow } from '#shared/workflows/publish.ts';
import { createWorkflowBodySchema, createWorkflowResponseSchema } from '#shared/workflows/schemas.ts';

/** POST /rest/workflows: a new workflow, or a new version of one (by workflow_id or workflow_name). */
export const handler = httpRoute({
  body: createWorkflowBodySchema,
  permission: ['workflows', 'edit'],
  responses: { 201: createWorkflowResponseSchema },
  errors: [404, 409, 413],
  status: 201,
  handle: ({ body, auth }) => createWorkflow(auth.workspaceId, auth.userId, body, auth.userEmail),
});
