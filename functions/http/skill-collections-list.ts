import { httpRoute } from '#shared/platform/http.ts';
import { listCollections } from '#shared/skills/list.ts';
import { listCollectionsQuerySchema, listCollectionsResponseSchema } from '#shared/skills/schemas.ts';

/** GET /api/public/v2/skill-collections: the workspace's collections, filtered, sorted and paged. */
export const handler = httpRoute({
  query: listCollectionsQuerySchema,
  permission: ['skills', 'read'],
  responses: { 200: listCollectionsResponseSchema },
  handle: ({ query, auth }) => listCollections(auth.workspaceId, query),
});
