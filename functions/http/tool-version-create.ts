import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import { createToolVersion } from '#shared/tools/publish.ts';
import {
  createToolVersionBodySchema,
  createToolVersionResponseSchema,
  toolIdentifierSchema,
} from '#shared/tools/schemas.ts';

/** POST /api/public/v2/tool-registry/{identifier}/versions: the next version of a tool (by id or name). */
export const handler = httpRoute({
  path: z.object({ identifier: toolIdentifierSchema }),
  body: createToolVersionBodySchema,
  permission: ['tools', 'edit'],
  responses: { 201: createToolVersionResponseSchema },
  errors: [404, 413],
  status: 201,
  handle: ({ path, body, auth }) => createToolVersion(auth.workspaceId, auth.userId, path.identifier, body),
});
