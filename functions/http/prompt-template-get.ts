import * as z from 'zod';
import { httpRoute } from '#shared/platform/http.ts';
import { getRawTemplate } from '#shared/prompts/read.ts';
import { getTemplateQuerySchema, rawTemplateViewSchema, toReadOptions } from '#shared/prompts/schemas.ts';

/** GET /prompt-templates/{identifier} (spec 2): a template version, raw, through the container's cache. */
export const handler = httpRoute({
  path: z.object({ identifier: z.string().min(1) }),
  query: getTemplateQuerySchema,
  permission: ['prompts', 'read'],
  responses: { 200: rawTemplateViewSchema },
  handle: ({ path, query, auth, headers }) =>
    getRawTemplate(
      auth.workspaceId,
      path.identifier,
      toReadOptions(query),
      /\bno-cache\b/i.test(headers['cache-control'] ?? ''),
    ),
});
