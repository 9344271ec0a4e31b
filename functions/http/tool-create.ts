import { httpRoute } from '#shared/platform/http.ts';
import { createTool } from '#shared/tools/publish.ts';
import { createToolBodySchema, createToolResponseSchema } from '#shared/tools/schemas.ts';

/** POST /api/public/v2/tool-registry: a new tool (name unique in the workspace) at version 1. */
export const handler = httpRoute({
  body: createToolBodySchema,
  permission: ['tools', 'edit'],
  responses: { 201: createToolResponseSchema },
  errors: [404, 409, 413],
  status: 201,
  handle: ({ body, auth }) => createTool(auth.workspaceId, auth.userId, body, auth.userEmail),
});
