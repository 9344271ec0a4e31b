import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { folderExternalIds } from '#shared/folders/external-ids.ts';
import { folderPathParams } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';

/** DELETE /api/public/v2/folders/{folder_id}/external-ids/{source}/{external_id}: detaches a mapping. */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, folderPathParams.shape),
  permission: ['folders', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => folderExternalIds.detach(auth.workspaceId, path.folder_id, path),
});
