import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { getTool } from '#shared/tools/read.ts';
import { getToolQuerySchema, getToolResponseSchema, toolIdentifierSchema } from '#shared/tools/schemas.ts';

/** GET /api/public/v2/tool-registry/{identifier}: a tool (by id or name) at a version, a label or the latest. */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema }),
  query: getToolQuerySchema,
  permission: ['tools', 'read'],
  responses: { 200: getToolResponseSchema },
  handle: ({ path, query, auth }) => getTool(auth.workspaceId, path.identifier, query),
});
