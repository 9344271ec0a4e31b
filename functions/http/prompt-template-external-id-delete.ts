import { externalIdResponses, externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { templateExternalIds } from '#shared/prompts/external-ids.ts';

/** DELETE /prompt-templates/{prompt_template_id}/external-ids/{source}/{external_id}: detaches a mapping. */
export const handler = httpRoute({
  path: z.extend(externalIdSchema, { identifier: idParam }),
  permission: ['prompts', 'edit'],
  responses: { 200: externalIdResponses.detached },
  handle: ({ path, auth }) => templateExternalIds.detach(auth.workspaceId, path.identifier, path),
});
