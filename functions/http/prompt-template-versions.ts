import { httpRoute } from '#shared/platform/http.ts';
import * as z from '#shared/platform/zod.ts';
import {
  listVersionsQuerySchema,
  templateIdentifierSchema,
  versionListSchema,
} from '#shared/prompts/schemas.ts';
import { listVersions } from '#shared/prompts/versions.ts';

/**
 * GET /prompt-templates/{identifier}/versions: a template's versions newest first, paged, each with its
 * commit message, time, labels and model (no template body: read one with `?version=`).
 */
export const handler = httpRoute({
  path: z.object({ identifier: templateIdentifierSchema }),
  query: listVersionsQuerySchema,
  permission: ['prompts', 'read'],
  responses: { 200: versionListSchema },
  handle: ({ path, query, auth }) =>
    listVersions(auth.workspaceId, path.identifier, query.page, query.per_page),
});
