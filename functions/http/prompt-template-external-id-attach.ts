import * as z from 'zod';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import { templateExternalIds } from '#shared/prompts/external-ids.ts';

/**
 * POST /prompt-templates/{prompt_template_id}/external-ids. The path parameter is named
 * `identifier` like its siblings: API Gateway allows one parameter name per path level.
 */
export const handler = httpRoute({
  path: z.object({ identifier: idParam }),
  body: externalIdSchema,
  permission: ['prompts', 'edit'],
  status: 201,
  handle: ({ path, body, auth }) => templateExternalIds.attach(auth.workspaceId, path.identifier, body),
});
