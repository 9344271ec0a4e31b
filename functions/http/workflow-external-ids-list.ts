import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { workflowExternalIds } from '#shared/workflows/external-ids.ts';

/** GET /workflows/{workflow_id}/external-ids: the workflow's mappings. */
export const handler = httpRoute({
  path: z.object({ workflow_name: idParam }),
  permission: ['workflows', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => workflowExternalIds.list(auth.workspaceId, path.workflow_name),
});
