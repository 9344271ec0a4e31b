import { httpRoute } from '#shared/platform/http.ts';
import { publishPromptTemplate } from '#shared/prompts/publish.ts';
import { publishBodySchema, publishViewSchema } from '#shared/prompts/schemas.ts';

/** POST /rest/prompt-templates: publishes a new version, creating the template the first time. */
export const handler = httpRoute({
  body: publishBodySchema,
  permission: ['prompts', 'edit'],
  responses: { 201: publishViewSchema },
  errors: [404, 409],
  status: 201,
  handle: ({ body, auth }) => publishPromptTemplate(auth.workspaceId, body, auth),
});
