import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { patchWorkflow } from '#shared/workflows/patch.ts';
import {
  createWorkflowResponseSchema,
  patchWorkflowBodySchema,
  workflowIdentifierSchema,
} from '#shared/workflows/schemas.ts';

/** PATCH /rest/workflows/{workflow_id_or_name}: a new version from a partial change of the latest. */
export const handler = httpRoute({
  path: z.object({ workflow_id_or_name: workflowIdentifierSchema }),
  body: patchWorkflowBodySchema,
  permission: ['workflows', 'edit'],
  responses: { 201: createWorkflowResponseSchema },
  errors: [404, 413],
  status: 201,
  handle: ({ path, body, auth }) =>
    patchWorkflow(auth.workspaceId, auth.userId, path.workflow_id_or_name, body),
});
