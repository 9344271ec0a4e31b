import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { versionMultipart } from '#shared/skills/multipart-bodies.ts';
import { saveCollectionVersion } from '#shared/skills/publish.ts';
import {
  collectionIdentifierSchema,
  saveVersionBodySchema,
  saveVersionResponseSchema,
} from '#shared/skills/schemas.ts';

/**
 * POST /api/public/v2/skill-collections/{identifier}/versions: the next version (moves, deletes, file
 * updates as JSON, or a ZIP of updated files as multipart/form-data), a release label moved onto it.
 */
export const handler = httpRoute({
  path: z.object({ identifier: collectionIdentifierSchema }),
  body: saveVersionBodySchema,
  optionalBody: true,
  multipart: versionMultipart,
  permission: ['skills', 'edit'],
  responses: { 201: saveVersionResponseSchema },
  errors: [409],
  status: 201,
  handle: ({ path, body, auth }) => saveCollectionVersion(auth, path.identifier, body),
});
