import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { toolExternalIds } from '#shared/tools/external-ids.ts';

/** DELETE /api/public/v2/tool-registry/{tool_id}/external-ids/{source}/{external_id}: detaches a mapping. */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, { identifier: idParam }),
  permission: ['tools', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => toolExternalIds.detach(auth.workspaceId, path.identifier, path),
});
