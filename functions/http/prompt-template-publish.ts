import { requirePermission } from '#shared/entities/permissions.ts';
import { httpRoute } from '#shared/platform/http.ts';
import type { PromptBlueprint } from '#shared/prompts/llm-kwargs/blueprint.ts';
import { publishPromptTemplate } from '#shared/prompts/publish.ts';
import { publishBodySchema, publishViewSchema } from '#shared/prompts/schemas.ts';
import { hasToolReferences } from '#shared/prompts/tool-refs.ts';

/**
 * POST /rest/prompt-templates: publishes a new version, creating the template the first time (200, as
 * PromptLayer documents, for a new template too). A
 * template naming registry tools also needs `tools: read` (403 before anything is read or written).
 */
export const handler = httpRoute({
  body: publishBodySchema,
  permission: ['prompts', 'edit'],
  responses: { 200: publishViewSchema },
  errors: [404, 409],
  handle: ({ body, auth }) => {
    if (hasToolReferences(body.prompt_version.prompt_template as PromptBlueprint)) {
      requirePermission(auth, 'tool', 'read');
    }
    return publishPromptTemplate(auth.workspaceId, body, auth);
  },
});
