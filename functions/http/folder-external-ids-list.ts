import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { folderExternalIds } from '#shared/folders/external-ids.ts';
import { folderPathParams } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/folders/{folder_id}/external-ids: the folder's mappings. */
export const handler = httpRoute({
  path: folderPathParams,
  permission: ['folders', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => folderExternalIds.list(auth.workspaceId, path.folder_id),
});
