import { createEnvVar, createEnvVarBodySchema, toolEnvVarAnswerSchema } from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { requireToolHead } from '#shared/tools/read.ts';
import { toolIdentifierSchema } from '#shared/tools/schemas.ts';

/** POST /api/public/v2/tool-registry/{identifier}/env-vars: a variable of one tool (over the workspace's). */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema }),
  body: createEnvVarBodySchema,
  permission: ['tools', 'edit'],
  responses: { 201: toolEnvVarAnswerSchema },
  errors: [409],
  status: 201,
  handle: async ({ path, body, auth }) => {
    const tool = await requireToolHead(auth.workspaceId, path.identifier);
    return {
      success: true as const,
      tool_env_var: await createEnvVar({ workspaceId: auth.workspaceId, toolId: tool.id }, body),
    };
  },
});
