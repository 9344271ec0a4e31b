import { updateFolder } from '#shared/folders/folders.ts';
import { folderPathParams, folderResponseSchema, updateFolderBodySchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** PATCH /api/public/v2/folders/{folder_id}: rename and/or move (`parent_id`, null: the root). */
export const handler = httpRoute({
  path: folderPathParams,
  body: updateFolderBodySchema,
  permission: ['folders', 'edit'],
  responses: { 200: folderResponseSchema },
  errors: [409],
  handle: ({ path, body, auth }) => updateFolder(auth.workspaceId, path.folder_id, body),
});
