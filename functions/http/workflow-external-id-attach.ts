import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { workflowExternalIds } from '#shared/workflows/external-ids.ts';

/**
 * POST /workflows/{workflow_id}/external-ids: attaches a mapping (201). The path parameter is named
 * `workflow_name` like its siblings: API Gateway allows one parameter name per path level.
 */
export const handler = httpRoute({
  path: z.object({ workflow_name: idParam }),
  body: externalIdSchema,
  permission: ['workflows', 'edit'],
  responses: { 201: externalIdResponses.attached },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => workflowExternalIds.attach(auth.workspaceId, path.workflow_name, body),
});
