import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getRawTemplate } from '#shared/prompts/read.ts';
import {
  getTemplateQuerySchema,
  rawTemplateViewSchema,
  templateIdentifierSchema,
  toReadOptions,
} from '#shared/prompts/schemas.ts';
import { wantsFreshRead } from '#shared/prompts/template-cache.ts';

/** GET /prompt-templates/{identifier}: a template version, raw, through the container's cache. */
export const handler = httpRoute({
  path: z.object({ identifier: templateIdentifierSchema }),
  query: getTemplateQuerySchema,
  permission: ['prompts', 'read'],
  responses: { 200: rawTemplateViewSchema },
  handle: ({ path, query, auth, headers }) =>
    getRawTemplate(auth.workspaceId, path.identifier, toReadOptions(query), wantsFreshRead(headers)),
});
