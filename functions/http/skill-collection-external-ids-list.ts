import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { skillExternalIds } from '#shared/skills/external-ids.ts';
import { collectionIdentifierSchema } from '#shared/skills/schemas.ts';

/** GET /api/public/v2/skill-collections/{skill_collection_id}/external-ids: the collection's mappings. */
export const handler = httpRoute({
  path: z.object({ identifier: collectionIdentifierSchema }),
  permission: ['skills', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => skillExternalIds.list(auth.workspaceId, path.identifier),
});
