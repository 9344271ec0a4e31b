import { kindPermission } from '#shared/entities/permissions.ts';
import { moveEntities, moveKinds } from '#shared/folder-contents/move.ts';
import { countResponseSchema, moveEntitiesBodySchema } from '#shared/folders/schemas.ts';
import { httpRoute } from '#shared/platform/http.ts';

/**
 * POST /api/public/v2/folders/entities: moves entities of any kinds into a folder (null: the root).
 * Edit on the permission type of every type named is checked before anything is read (403 naming it).
 */
export const handler = httpRoute({
  body: moveEntitiesBodySchema,
  permission: (body) => moveKinds(body.entities).map((kind) => kindPermission(kind, 'edit')),
  tag: 'folders',
  responses: { 200: countResponseSchema },
  errors: [404, 409],
  handle: ({ body, auth }) => moveEntities(auth.workspaceId, body),
});
