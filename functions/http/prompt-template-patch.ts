import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { patchPromptTemplate } from '#shared/prompts/patch.ts';
import {
  patchTemplateBodySchema,
  publishViewSchema,
  templateIdentifierSchema,
} from '#shared/prompts/schemas.ts';

/**
 * PATCH /rest/prompt-templates/{identifier}: a new version from a base version (`version`, `label`, else
 * the latest) with partial changes: messages or content by index or whole, tools, functions,
 * tool_choice, function_call, model parameters merged, response_format, labels (201).
 */
export const handler = httpRoute({
  path: z.object({ identifier: templateIdentifierSchema }),
  body: patchTemplateBodySchema,
  permission: ['prompts', 'edit'],
  responses: { 201: publishViewSchema },
  errors: [404, 409],
  status: 201,
  handle: ({ path, body, auth }) => patchPromptTemplate(auth, path.identifier, body, auth),
});
