import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { renameCollection } from '#shared/skills/publish.ts';
import {
  collectionIdentifierSchema,
  renameBodySchema,
  renameResponseSchema,
} from '#shared/skills/schemas.ts';

/** PATCH /api/public/v2/skill-collections/{identifier}: renames the collection (409 when the name is taken). */
export const handler = httpRoute({
  path: z.object({ identifier: collectionIdentifierSchema }),
  body: renameBodySchema,
  permission: ['skills', 'edit'],
  responses: { 200: renameResponseSchema },
  errors: [409],
  handle: ({ path, body, auth }) => renameCollection(auth, path.identifier, body),
});
