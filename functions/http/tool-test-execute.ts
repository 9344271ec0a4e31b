import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { toolIdentifierSchema } from '#shared/tools/schemas.ts';
import {
  testExecuteBodySchema,
  testExecuteQuerySchema,
  testExecuteResponseSchema,
  testExecuteTool,
} from '#shared/tools/test-execute.ts';

/**
 * POST /api/public/v2/tool-registry/{identifier}/test-execute: runs a tool version's body (by `version`,
 * `label` or the latest; or the `execution` sent) in the sandbox with `inputs` as `args` and the
 * environment variables as `process.env`. The code's failures are a 200 with `result.status: "error"`.
 */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema }),
  query: testExecuteQuerySchema,
  body: testExecuteBodySchema,
  optionalBody: true,
  // Runs code: a read-only key may read the tool, not run it.
  permission: ['tools', 'edit'],
  responses: { 200: testExecuteResponseSchema },
  errors: [502],
  handle: ({ path, query, body, auth }) => testExecuteTool(auth.workspaceId, path.identifier, query, body),
});
