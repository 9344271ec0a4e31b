import { removeEnvVar } from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';
import { requireToolHead } from '#shared/tools/read.ts';
import { toolIdentifierSchema } from '#shared/tools/schemas.ts';

/** DELETE /api/public/v2/tool-registry/{identifier}/env-vars/{var_id}: removes a tool's variable. */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema, var_id: idParam }),
  permission: ['tools', 'edit'],
  responses: { 200: successSchema },
  handle: async ({ path, auth }) => {
    const tool = await requireToolHead(auth.workspaceId, path.identifier);
    return removeEnvVar({ workspaceId: auth.workspaceId, toolId: tool.id }, path.var_id);
  },
});
