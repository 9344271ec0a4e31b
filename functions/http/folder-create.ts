import { createFolder } from '#shared/folders/folders.ts';
import { createFolderBodySchema, folderResponseSchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** POST /api/public/v2/folders: a folder (name unique in its parent, 409) under `parent_id` or the root. */
export const handler = httpRoute({
  body: createFolderBodySchema,
  permission: ['folders', 'edit'],
  responses: { 201: folderResponseSchema },
  errors: [404, 409],
  status: 201,
  handle: ({ body, auth }) => createFolder(auth.workspaceId, body),
});
