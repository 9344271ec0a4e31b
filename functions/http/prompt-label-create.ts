import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { createLabel } from '#shared/prompts/labels.ts';
import { createLabelBodySchema, labelViewSchema } from '#shared/prompts/schemas.ts';

/**
 * POST /prompts/{prompt_id}/label: creates a release label on a version of a template. A label the
 * template already has is a 409 (move it with PATCH /prompt-labels/{id}).
 */
export const handler = httpRoute({
  path: z.object({ prompt_id: idParam }),
  body: createLabelBodySchema,
  permission: ['prompts', 'edit'],
  responses: { 200: labelViewSchema },
  errors: [409],
  handle: ({ path, body, auth }) =>
    createLabel(auth.workspaceId, path.prompt_id, body.name, body.prompt_version_number, auth),
});
