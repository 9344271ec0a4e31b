import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { toolExternalIds } from '#shared/tools/external-ids.ts';

/** GET /api/public/v2/tool-registry/{tool_id}/external-ids: the tool's mappings. */
export const handler = httpRoute({
  path: z.object({ identifier: idParam }),
  permission: ['tools', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => toolExternalIds.list(auth.workspaceId, path.identifier),
});
