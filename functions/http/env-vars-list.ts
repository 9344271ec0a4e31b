import { listEnvVarViews, workspaceEnvVarListSchema } from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** GET /api/public/v2/env-vars: the workspace's environment variables (keys and suffixes, never values). */
export const handler = httpRoute({
  permission: ['env_vars', 'read'],
  responses: { 200: workspaceEnvVarListSchema },
  handle: async ({ auth }) => ({
    success: true as const,
    workspace_env_vars: await listEnvVarViews({ workspaceId: auth.workspaceId }),
  }),
});
