import { externalIdResponses } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { templateExternalIds } from '#shared/prompts/external-ids.ts';

/** GET /prompt-templates/{prompt_template_id}/external-ids: the template's mappings. */
export const handler = httpRoute({
  path: z.object({ identifier: idParam }),
  permission: ['prompts', 'read'],
  responses: { 200: externalIdResponses.list },
  handle: ({ path, auth }) => templateExternalIds.list(auth.workspaceId, path.identifier),
});
