import { httpRoute } from '#shared/platform/http.ts';
import { createMultipart } from '#shared/skills/multipart-bodies.ts';
import { createCollection } from '#shared/skills/publish.ts';
import { createCollectionBodySchema, createCollectionResponseSchema } from '#shared/skills/schemas.ts';

/**
 * POST /api/public/v2/skill-collections: a new collection (name unique in the workspace) at version 1,
 * its files as JSON `files` or a ZIP sent as multipart/form-data.
 */
export const handler = httpRoute({
  body: createCollectionBodySchema,
  multipart: createMultipart,
  permission: ['skills', 'edit'],
  responses: { 201: createCollectionResponseSchema },
  errors: [404, 409],
  status: 201,
  handle: ({ body, auth }) => createCollection(auth, body),
});
