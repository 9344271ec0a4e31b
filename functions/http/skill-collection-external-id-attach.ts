import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { skillExternalIds } from '#shared/skills/external-ids.ts';
import { collectionIdentifierSchema } from '#shared/skills/schemas.ts';

/**
 * POST /api/public/v2/skill-collections/{skill_collection_id}/external-ids: attaches a mapping (201).
 * The path parameter is named `identifier` like its siblings: API Gateway allows one parameter name per
 * path level.
 */
export const handler = httpRoute({
  path: z.object({ identifier: collectionIdentifierSchema }),
  body: externalIdSchema,
  permission: ['skills', 'edit'],
  responses: { 201: externalIdResponses.attached },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => skillExternalIds.attach(auth.workspaceId, path.identifier, body),
});
