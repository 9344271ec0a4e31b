import { deleteEntities } from '#shared/folder-contents/delete.ts';
import { countResponseSchema, deleteEntitiesBodySchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** DELETE /api/public/v2/folders/entities: deletes FOLDER entities (others: their own endpoints, 400). */
export const handler = httpRoute({
  body: deleteEntitiesBodySchema,
  permission: ['folders', 'edit'],
  responses: { 200: countResponseSchema },
  errors: [404, 409],
  handle: ({ body, auth }) => deleteEntities(auth, body),
});
