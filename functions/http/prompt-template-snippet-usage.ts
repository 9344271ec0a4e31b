import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import {
  snippetUsageQuerySchema,
  snippetUsageResponseSchema,
  templateIdentifierSchema,
} from '#shared/prompts/schemas.ts';
import { getSnippetUsage } from '#shared/prompts/snippet-usage.ts';

/**
 * GET /prompt-templates/{identifier}/snippet-usage: the templates and versions whose text references
 * the snippet, and the release labels on those versions (from an index written at publish).
 */
export const handler = httpRoute({
  path: z.object({ identifier: templateIdentifierSchema }),
  query: snippetUsageQuerySchema,
  permission: ['prompts', 'read'],
  responses: { 200: snippetUsageResponseSchema },
  handle: ({ path, query, auth }) =>
    getSnippetUsage(auth.workspaceId, path.identifier, query.prompt_version_number),
});
