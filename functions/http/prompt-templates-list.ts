import { httpRoute } from '#shared/platform/http.ts';
import { listTemplates } from '#shared/prompts/list.ts';
import { listTemplatesQuerySchema, templateListSchema } from '#shared/prompts/schemas.ts';

/** GET /prompt-templates: the workspace's templates with their latest versions, filtered and paged. */
export const handler = httpRoute({
  query: listTemplatesQuerySchema,
  permission: ['prompts', 'read'],
  responses: { 200: templateListSchema },
  handle: ({ query, auth }) => listTemplates(auth.workspaceId, query),
});
