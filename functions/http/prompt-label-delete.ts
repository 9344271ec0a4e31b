import * as z from 'zod';
import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';
import { idParam } from '#shared/platform/schemas.ts';
import { deleteLabel } from '#shared/prompts/labels.ts';

/** DELETE /prompt-labels/{prompt_label_id}: removes a release label from its template. */
export const handler = httpRoute({
  path: z.object({ prompt_label_id: idParam }),
  permission: ['prompts', 'edit'],
  responses: { 200: successSchema },
  handle: ({ path, auth }) => deleteLabel(auth.workspaceId, path.prompt_label_id, auth),
});
