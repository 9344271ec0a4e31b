import { listEnvVarViews, toolEnvVarListSchema } from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { requireToolHead } from '#shared/tools/read.ts';
import { toolIdentifierSchema } from '#shared/tools/schemas.ts';

/** GET /api/public/v2/tool-registry/{identifier}/env-vars: a tool's own environment variables. */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema }),
  permission: ['tools', 'read'],
  responses: { 200: toolEnvVarListSchema },
  handle: async ({ path, auth }) => {
    const tool = await requireToolHead(auth.workspaceId, path.identifier);
    return {
      success: true as const,
      tool_env_vars: await listEnvVarViews({ workspaceId: auth.workspaceId, toolId: tool.id }),
    };
  },
});
