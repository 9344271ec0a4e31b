import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { moveLabel } from '#shared/prompts/labels.ts';
import { labelViewSchema, moveLabelBodySchema } from '#shared/prompts/schemas.ts';

/** PATCH /prompt-labels/{prompt_label_id}: moves a label to another version of its template. */
export const handler = httpRoute({
  path: z.object({ prompt_label_id: idParam }),
  body: moveLabelBodySchema,
  permission: ['prompts', 'edit'],
  responses: { 200: labelViewSchema },
  handle: ({ path, body, auth }) =>
    moveLabel(auth.workspaceId, path.prompt_label_id, body.prompt_version_number, auth),
});
