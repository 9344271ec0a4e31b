import {
  createEnvVar,
  createEnvVarBodySchema,
  workspaceEnvVarAnswerSchema,
} from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';

/** POST /api/public/v2/env-vars: a workspace environment variable; the value is sealed and never shown. */
export const handler = httpRoute({
  body: createEnvVarBodySchema,
  permission: ['env_vars', 'edit'],
  responses: { 201: workspaceEnvVarAnswerSchema },
  errors: [409],
  status: 201,
  handle: async ({ body, auth }) => ({
    success: true as const,
    workspace_env_var: await createEnvVar({ workspaceId: auth.workspaceId }, body),
  }),
});
