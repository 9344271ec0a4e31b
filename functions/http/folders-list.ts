import { listFolders } from '#shared/folders/folders.ts';
import { listFoldersQuerySchema, listFoldersResponseSchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/folders: the workspace's folders (or one folder's children), each with its path. */
export const handler = httpRoute({
  query: listFoldersQuerySchema,
  permission: ['folders', 'read'],
  responses: { 200: listFoldersResponseSchema },
  errors: [400, 404, 413],
  handle: ({ query, auth }) => listFolders(auth.workspaceId, query),
});
