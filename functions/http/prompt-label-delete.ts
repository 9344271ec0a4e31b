import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { deleteLabel } from '#shared/prompts/labels.ts';

/** DELETE /prompt-labels/{prompt_label_id}: removes a release label from its template (204, as PromptLayer documents). */
export const handler = httpRoute({
  path: z.object({ prompt_label_id: idParam }),
  permission: ['prompts', 'edit'],
  responses: { 204: z.undefined() },
  handle: async ({ path, auth }) => {
    await deleteLabel(auth.workspaceId, path.prompt_label_id, auth);
    return new HttpResponse(204, undefined);
  },
});
