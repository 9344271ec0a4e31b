import { deleteFolder } from '#shared/folder-contents/delete.ts';
import {
  deleteFolderQuerySchema,
  deleteFolderResponseSchema,
  folderPathParams,
} from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * DELETE /api/public/v2/folders/{folder_id}: an empty folder (409 naming what it holds), or with
 * `cascade=true` its subtree, its entities moved to the workspace root.
 */
export const handler = httpRoute({
  path: folderPathParams,
  query: deleteFolderQuerySchema,
  permission: ['folders', 'edit'],
  responses: { 200: deleteFolderResponseSchema },
  errors: [409],
  handle: ({ path, query, auth }) => deleteFolder(auth, path.folder_id, query.cascade),
});
