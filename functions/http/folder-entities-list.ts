import { listFolderEntities } from '#shared/folder-contents/entities.ts';
import { listEntitiesQuerySchema, listEntitiesResponseSchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/folders/entities: the entities of every kind in a folder (or the root). */
export const handler = httpRoute({
  query: listEntitiesQuerySchema,
  permission: ['folders', 'read'],
  responses: { 200: listEntitiesResponseSchema },
  errors: [400, 404, 413],
  handle: ({ query, auth }) => listFolderEntities(auth, query),
});
