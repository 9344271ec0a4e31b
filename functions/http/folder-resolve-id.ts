import { resolveFolderPath } from '#shared/folders/folders.ts';
import { resolveFolderQuerySchema, resolveFolderResponseSchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/folders/resolve-id?path=A.B: the id of the folder at a dot-separated path. */
export const handler = httpRoute({
  query: resolveFolderQuerySchema,
  permission: ['folders', 'read'],
  responses: { 200: resolveFolderResponseSchema },
  errors: [400, 404],
  handle: ({ query, auth }) => resolveFolderPath(auth.workspaceId, query),
});
