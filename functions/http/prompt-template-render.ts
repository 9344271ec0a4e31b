import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getRenderedTemplate } from '#shared/prompts/rendered.ts';
import {
  renderedTemplateSchema,
  renderTemplateBodySchema,
  templateIdentifierSchema,
} from '#shared/prompts/schemas.ts';
import { wantsFreshRead } from '#shared/prompts/template-cache.ts';

/**
 * POST /prompt-templates/{identifier}: what the PromptLayer SDK's `templates.get` calls. The template
 * as the GET reads it (through the same cache), rendered with `input_variables`, with `llm_kwargs`.
 */
export const handler = httpRoute({
  path: z.object({ identifier: templateIdentifierSchema }),
  body: renderTemplateBodySchema,
  // The SDK sends no body at all for `templates.get(name)`.
  optionalBody: true,
  permission: ['prompts', 'read'],
  responses: { 200: renderedTemplateSchema },
  handle: ({ path, body, rawBody, auth, headers }) =>
    getRenderedTemplate(
      auth.workspaceId,
      path.identifier,
      body,
      // Values exactly as sent: a parsed record would lose a variable called `__proto__`.
      body.input_variables ? (rawBody as { input_variables: Record<string, unknown> }).input_variables : null,
      wantsFreshRead(headers),
    ),
});
