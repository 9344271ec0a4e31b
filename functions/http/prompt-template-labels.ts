import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { listLabels } from '#shared/prompts/labels.ts';
import { labelsViewSchema, templateIdentifierSchema } from '#shared/prompts/schemas.ts';

/** GET /prompt-templates/{identifier}/labels: a template's release labels with the ids PATCH takes. */
export const handler = httpRoute({
  path: z.object({ identifier: templateIdentifierSchema }),
  permission: ['prompts', 'read'],
  responses: { 200: labelsViewSchema },
  handle: ({ path, auth }) => listLabels(auth.workspaceId, path.identifier),
});
