import { toolEnvVarAnswerSchema, updateEnvVar, updateEnvVarBodySchema } from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { requireToolHead } from '#shared/tools/read.ts';
import { toolIdentifierSchema } from '#shared/tools/schemas.ts';

/** PATCH /api/public/v2/tool-registry/{identifier}/env-vars/{var_id}: replaces a tool variable's value. */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema, var_id: idParam }),
  body: updateEnvVarBodySchema,
  permission: ['tools', 'edit'],
  responses: { 200: toolEnvVarAnswerSchema },
  handle: async ({ path, body, auth }) => {
    const tool = await requireToolHead(auth.workspaceId, path.identifier);
    return {
      success: true as const,
      tool_env_var: await updateEnvVar({ workspaceId: auth.workspaceId, toolId: tool.id }, path.var_id, body),
    };
  },
});
