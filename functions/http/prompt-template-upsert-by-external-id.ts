import { requirePermission } from '#shared/entities/permissions.ts';
import { externalIdSchema } from '#shared/external-ids/external-ids.ts';
import { HttpResponse, httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import type { PromptBlueprint } from '#shared/prompts/llm-kwargs/blueprint.ts';
import { publishBodySchema, publishViewSchema } from '#shared/prompts/schemas.ts';
import { hasToolReferences } from '#shared/prompts/tool-refs.ts';
import { upsertByExternalId } from '#shared/prompts/upsert-by-external-id.ts';

/**
 * PUT /prompt-templates/by-external-id/{source}/{external_id}: publishes a new version of the template
 * holding the mapping (200), or creates the template under the body's `prompt_name` with the mapping
 * attached (201). The body is a publish's; a template naming registry tools also needs `tools: read`.
 */
export const handler = httpRoute({
  // The mapping's fields, not its named component: path parameters are documented one by one.
  path: z.strictObject(externalIdSchema.shape),
  body: publishBodySchema,
  permission: ['prompts', 'edit'],
  responses: { 200: publishViewSchema, 201: publishViewSchema },
  errors: [404, 409],
  handle: async ({ path, body, auth }) => {
    if (hasToolReferences(body.prompt_version.prompt_template as PromptBlueprint)) {
      requirePermission(auth, 'tool', 'read');
    }
    const { created, view } = await upsertByExternalId(auth.workspaceId, path, body, auth);
    return new HttpResponse(created ? 201 : 200, view);
  },
});
