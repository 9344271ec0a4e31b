import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { folderExternalIds } from '#shared/folders/external-ids.ts';
import { folderPathParams } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** POST /api/public/v2/folders/{folder_id}/external-ids: attaches a mapping (201; idempotent; 409). */
export const handler = httpRoute({
  path: folderPathParams,
  body: externalIdSchema,
  permission: ['folders', 'edit'],
  responses: { 201: externalIdResponses.attached },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => folderExternalIds.attach(auth.workspaceId, path.folder_id, body),
});
