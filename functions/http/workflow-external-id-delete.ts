import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { workflowExternalIds } from '#shared/workflows/external-ids.ts';

/** DELETE /workflows/{workflow_id}/external-ids/{source}/{external_id}: detaches a mapping. */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, { workflow_name: idParam }),
  permission: ['workflows', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => workflowExternalIds.detach(auth.workspaceId, path.workflow_name, path),
});
