import { removeEnvVar } from '#shared/env-vars/env-vars.ts';
import { httpRoute } from '#shared/platform/http.ts';
import { successSchema } from '#shared/platform/response-schemas.ts';
import { idParam } from '#shared/platform/schemas.ts';
import * as z from '#shared/platform/zod.ts';

/** DELETE /api/public/v2/env-vars/{var_id}: code run from now on no longer sees the variable. */
export const handler = httpRoute({
  path: z.object({ var_id: idParam }),
  permission: ['env_vars', 'edit'],
  responses: { 200: successSchema },
  handle: ({ path, auth }) => removeEnvVar({ workspaceId: auth.workspaceId }, path.var_id),
});
