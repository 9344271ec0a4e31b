import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { skillExternalIds } from '#shared/skills/external-ids.ts';
import { collectionIdentifierSchema } from '#shared/skills/schemas.ts';

/** DELETE /api/public/v2/skill-collections/{skill_collection_id}/external-ids/{source}/{external_id}. */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, { identifier: collectionIdentifierSchema }),
  permission: ['skills', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => skillExternalIds.detach(auth.workspaceId, path.identifier, path),
});
