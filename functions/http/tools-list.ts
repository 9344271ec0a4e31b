import { httpRoute } from '#shared/platform/http.ts';
import { listTools } from '#shared/tools/list.ts';
import { listToolsQuerySchema, listToolsResponseSchema } from '#shared/tools/schemas.ts';

/** GET /api/public/v2/tool-registry: the workspace's tools, filtered, sorted (latest update first) and paged. */
export const handler = httpRoute({
  query: listToolsQuerySchema,
  permission: ['tools', 'read'],
  responses: { 200: listToolsResponseSchema },
  handle: ({ query, auth }) => listTools(auth.workspaceId, query),
});
