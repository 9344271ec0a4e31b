import {
  updateEnvVar,
  updateEnvVarBodySchema,
  workspaceEnvVarAnswerSchema,
} from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** PATCH /api/public/v2/env-vars/{var_id}: replaces a workspace variable's value. */
export const handler = httpRoute({
  path: z.object({ var_id: idParam }),
  body: updateEnvVarBodySchema,
  permission: ['env_vars', 'edit'],
  responses: { 200: workspaceEnvVarAnswerSchema },
  handle: async ({ path, body, auth }) => ({
    success: true as const,
    workspace_env_var: await updateEnvVar({ workspaceId: auth.workspaceId }, path.var_id, body),
  }),
});
