import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { toolExternalIds } from '#shared/tools/external-ids.ts';

/**
 * POST /api/public/v2/tool-registry/{tool_id}/external-ids: attaches a mapping (201). The path parameter
 * is named `identifier` like its siblings: API Gateway allows one parameter name per path level.
 */
export const handler = httpRoute({
  path: z.object({ identifier: idParam }),
  body: externalIdSchema,
  permission: ['tools', 'edit'],
  responses: { 201: externalIdResponses.attached },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => toolExternalIds.attach(auth.workspaceId, path.identifier, body),
});
